// Deleting a message the bot sent (a finished status message, progressEnd 'delete') against the fake
// Bot API on 127.0.0.1: the call names the chat and the message, a message already gone counts as
// deleted (a delete resent after a crash), any other refusal is a failure, and an id that is not the
// chat's is refused without a call.
import { afterEach, describe, expect, it } from 'vitest';
import { makeApi } from '../../../src/channels/telegram/api.js';
import { deleteMessage } from '../../../src/channels/telegram/changes.js';
import { type FakeBotApi, startFakeBotApi, TOKEN } from './fake-bot-api.js';

let api: FakeBotApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe('Telegram: deleteMessage', () => {
  it('deletes; gone already is done; a refusal is a failure; a bad id calls nothing', async () => {
    api = await startFakeBotApi();
    const bot = makeApi(TOKEN, api.url);
    expect(await deleteMessage(bot, '42', '500')).toEqual({ ok: true, providerId: '500' });
    expect(api.callsOf('deleteMessage')[0]?.params).toMatchObject({ chat_id: '42', message_id: 500 });

    api.failNext('deleteMessage', {
      error_code: 400,
      description: 'Bad Request: message to delete not found',
    });
    expect(await deleteMessage(bot, '42', '500')).toMatchObject({ ok: true });
    api.failNext('deleteMessage', { error_code: 400, description: "Bad Request: message can't be deleted" });
    expect(await deleteMessage(bot, '42', '501')).toMatchObject({ ok: false, retryable: false, code: '400' });

    // Another chat's id (inbox ids carry their chat), and the channel not connected.
    expect(await deleteMessage(bot, '42', '43:77')).toMatchObject({ ok: false, code: 'bad_id' });
    expect(await deleteMessage(undefined, '42', '500')).toMatchObject({ ok: false, retryable: true });
    expect(api.callsOf('deleteMessage')).toHaveLength(3);
  });
});
