// Live progress through the built relay on the fake Telegram Bot API (127.0.0.1): the checks of
// progress-suite.ts, the status message sent by sendMessage, edited by editMessageText and deleted by
// deleteMessage. Needs `npm run build`.
import { dm, startFakeBotApi, TOKEN } from '../channels/telegram/fake-bot-api.js';
import { waitFor } from './helpers.js';
import { progressSuite } from './progress-suite.js';

const PERSON = 42;

progressSuite('live progress through the relay on Telegram', async () => {
  const api = await startFakeBotApi();
  let update = 0;
  const ofChat = (method: string) =>
    api.callsOf(method).filter((c) => String(c.params.chat_id) === String(PERSON));
  const sent = () => ofChat('sendMessage').filter((c) => c.result !== undefined);
  return {
    name: 'telegram',
    section: { enabled: true, apiRoot: api.url, allowFrom: [PERSON] },
    // HTML: the command shown as code.
    statusLine: /^running <code>cat f\d+\.txt<\/code>$/,
    env: { TELEGRAM_BOT_TOKEN: TOKEN },
    connections: () => api.callsOf('getUpdates').length,
    // Connected once the relay polls for updates.
    connected: (before) => waitFor(() => api.callsOf('getUpdates').length > before, 60_000),
    push: (text) => {
      update += 1;
      api.push(dm(PERSON, text, update));
    },
    sends: () => sent().map((c) => String(c.params.text)),
    sentId: (n) => {
      const r = sent()[n]?.result as { message_id?: number } | undefined;
      return r?.message_id === undefined ? undefined : String(r.message_id);
    },
    edits: () =>
      ofChat('editMessageText').map((c) => ({
        id: String(c.params.message_id),
        text: String(c.params.text),
      })),
    deletes: () => ofChat('deleteMessage').map((c) => String(c.params.message_id)),
    close: () => api.close(),
  };
});
