// The composition root with the real Telegram channel (grammY): an update from the fake Bot API on
// 127.0.0.1 (the far edge) reaches the queue through the registry's plugin, the fake CLI answers as
// a real child process, and the reply leaves by sendMessage; the poll offset lives in the real store.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningRelay, startRelay } from '../../src/relay.js';
import { channelStateStore } from '../../src/store/sqlite/channel-state.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { dm, type FakeBotApi, startFakeBotApi, TOKEN } from '../channels/telegram/fake-bot-api.js';
import { type Home, MAIN, makeHome, spawnNode, waitFor } from './helpers.js';

let home: Home | undefined;
let relay: RunningRelay | undefined;
let api: FakeBotApi | undefined;
afterEach(async () => {
  await relay?.stop(0);
  relay = undefined;
  await api?.close();
  api = undefined;
  home?.cleanup();
  home = undefined;
});

const texts = (a: FakeBotApi) => a.callsOf('sendMessage').map((c) => String(c.params.text));

describe('agentwire relay with the Telegram channel', () => {
  it('answers a private message through the queue and the agent, with typing, and a restart reads nothing twice', async () => {
    api = await startFakeBotApi();
    home = makeHome({ telegram: { enabled: true, apiRoot: api.url, allowFrom: [42] } });
    const ctx = home.ctx();
    relay = await startRelay({ ...ctx, env: { ...ctx.env, TELEGRAM_BOT_TOKEN: TOKEN } });
    const id = api.push(dm(42, 'hello agent', 1));
    expect(await waitFor(() => texts(api!).length > 0)).toBe(true);
    expect(texts(api)).toEqual(['reply: hello agent']);
    expect(api.callsOf('sendMessage')[0]!.params).toMatchObject({ chat_id: '42', parse_mode: 'HTML' });
    expect(api.callsOf('sendChatAction').length).toBeGreaterThan(0);
    expect(relay.channels.get('telegram')?.status()).toMatchObject({
      type: 'connected',
      account: '@agent_bot',
    });
    await relay.queue.whenIdle();
    await relay.stop(0);
    relay = undefined;
    const db = openDb(join(home.dir, 'agentwire.db'), QUEUE_MIGRATIONS);
    const offset = await channelStateStore(db, 'telegram').get('offset');
    db.close();
    expect(offset).toBe(id + 1);
    relay = await startRelay({ ...home.ctx(), env: { ...ctx.env, TELEGRAM_BOT_TOKEN: TOKEN } });
    api.push(dm(42, 'second', 2));
    expect(await waitFor(() => texts(api!).length > 1)).toBe(true);
    await relay.queue.whenIdle();
    expect(texts(api)).toEqual(['reply: hello agent', 'reply: second']);
    expect(home.events().filter((e) => e.ev === 'start')).toHaveLength(2);
  });

  it('`agentwire send` to a chat that blocked the bot says it was not sent, and exits 1', async () => {
    api = await startFakeBotApi();
    home = makeHome({ telegram: { enabled: true, apiRoot: api.url, allowFrom: [42] } });
    const ctx = home.ctx();
    relay = await startRelay({ ...ctx, env: { ...ctx.env, TELEGRAM_BOT_TOKEN: TOKEN } });
    // Telegram's answer to a bot whose user blocked it.
    api.failNext('sendMessage', { error_code: 403, description: 'Forbidden: bot was blocked by the user' });
    const p = spawnNode([MAIN, 'send', '--to', 'telegram:42', '-m', 'the build is green'], {
      ...home.env,
      TELEGRAM_BOT_TOKEN: TOKEN,
    });
    expect(await p.exit).toEqual({ code: 1, signal: null });
    expect(p.stderr()).toContain('Not sent to telegram:42: this Telegram chat blocked the bot or removed it');
    expect(p.stdout()).not.toContain('Handed');
    expect(api.callsOf('sendMessage')).toHaveLength(1);
    // The next send to it is refused without asking Telegram again.
    const again = spawnNode([MAIN, 'send', '--to', 'telegram:42', '-m', 'again'], {
      ...home.env,
      TELEGRAM_BOT_TOKEN: TOKEN,
    });
    expect(await again.exit).toEqual({ code: 1, signal: null });
    expect(again.stderr()).toContain('blocked the bot');
    expect(api.callsOf('sendMessage')).toHaveLength(1);
  });
});
