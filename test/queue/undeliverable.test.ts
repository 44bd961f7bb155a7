// A message the relay takes while its channel cannot deliver: `send` says it is queued and why
// (saying "handed to the running relay" left the sender believing it went out), says so when the
// channel refused it (a chat that blocked the bot), and a shutdown no longer waits its whole grace
// period for a reply nobody can send.
import { afterEach, describe, expect, it } from 'vitest';
import { queuedBecause } from '../../src/channels/send-state.js';
import type { ChannelState } from '../../src/channels/types.js';
import { handedText } from '../../src/cli/send.js';
import { MethodRegistry, registerCoreMethods } from '../../src/control/methods.js';
import { rowsForKey } from '../../src/store/sqlite/outbox.js';
import { FakeChannel, type Harness, harness } from './helpers.js';

class StatefulChannel extends FakeChannel {
  state: ChannelState = { type: 'relink_required', since: 0, reason: 'logged out from the phone' };
  override status(): ChannelState {
    return this.state;
  }
}

let h: Harness | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

function relay(channel: StatefulChannel) {
  h = harness({ channel });
  const registry = new MethodRegistry();
  registerCoreMethods(registry, {
    queue: h.queue,
    channels: new Map([[channel.name, channel]]),
    startedAt: 0,
    newKey: () => 'k1',
    parts: async (key) => rowsForKey(h!.store.db, key),
  });
  const send = registry.get('send');
  if (!send) throw new Error('no send method');
  return { h, send };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('send while the channel cannot deliver', () => {
  it('answers queued, with the reason, and the outbox keeps the message', async () => {
    const channel = new StatefulChannel('whatsapp');
    const { h, send } = relay(channel);
    const answer = await send({ channel: 'whatsapp', to: '+15550001111', text: 'hello' });
    expect(answer).toEqual({
      key: 'k1',
      queued: { state: 'relink_required', reason: expect.stringContaining('needs to be linked again') },
    });
    expect(handedText('whatsapp:+15550001111', answer).text).toMatch(
      /^Queued in the running relay's outbox for whatsapp:\+15550001111, not sent yet: WhatsApp needs to be linked again/,
    );
    expect(rowsForKey(h.store.db, 'sys:send:k1').map((r) => r.status)).toEqual(['pending']);
    expect(channel.sent).toHaveLength(0);
  });

  it('answers sent once the connected channel took it', async () => {
    const channel = new StatefulChannel('whatsapp');
    channel.state = { type: 'connected', since: 0 };
    const { send } = relay(channel);
    const answer = await send({ channel: 'whatsapp', to: '+15550001111', text: 'hello' });
    expect(answer).toEqual({ key: 'k1', outcome: { type: 'sent', parts: 1 } });
    expect(handedText('whatsapp:+15550001111', answer)).toEqual({
      text: 'Sent to whatsapp:+15550001111 by the running relay.\n',
      failed: false,
    });
    expect(channel.sent).toHaveLength(1);
  });

  it('answers not sent, with the reason, when the channel refused it for good', async () => {
    const channel = new StatefulChannel('whatsapp');
    channel.state = { type: 'connected', since: 0 };
    channel.failNext = [{ ok: false, error: 'this chat blocked the bot', retryable: false, code: 'blocked' }];
    const { send } = relay(channel);
    const answer = await send({ channel: 'whatsapp', to: '+15550001111', text: 'hello' });
    expect(answer).toMatchObject({
      outcome: { type: 'failed', error: expect.stringContaining('blocked the bot') },
    });
    expect(handedText('whatsapp:+15550001111', answer)).toEqual({
      text: expect.stringMatching(/^Not sent to whatsapp:\+15550001111: this chat blocked the bot/),
      failed: true,
    });
  });

  it('answers not delivered yet when the send outlasts the wait', async () => {
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    class SlowChannel extends StatefulChannel {
      override async send(...args: Parameters<StatefulChannel['send']>) {
        await held;
        return super.send(...args);
      }
    }
    const channel = new SlowChannel('whatsapp');
    channel.state = { type: 'connected', since: 0 };
    const { send } = relay(channel);
    const answer = await send({ channel: 'whatsapp', to: '+15550001111', text: 'hello', waitMs: 200 });
    release();
    expect(answer).toMatchObject({ outcome: { type: 'pending' } });
    expect(handedText('whatsapp:+15550001111', answer).text).toContain('not delivered yet');
    await channel.untilSent(1);
  });

  it.each<[ChannelState, string | undefined]>([
    [{ type: 'connected', since: 0 }, undefined],
    [{ type: 'connecting', since: 0, qr: 'x' }, 'QR code'],
    [{ type: 'connecting', since: 0 }, 'still connecting'],
    [{ type: 'degraded', since: 0, lastError: 'getaddrinfo EAI_AGAIN', retries: 3 }, 'cannot reach'],
    [{ type: 'stopped' }, 'not running'],
  ])('%j → %s', (state, words) => {
    const q = queuedBecause('whatsapp', state);
    if (words === undefined) expect(q).toBeUndefined();
    else expect(q?.reason).toContain(words);
  });
});

describe('shutdown with a reply nobody can deliver', () => {
  it('does not wait out the grace period; the reply stays in the outbox for the next start', async () => {
    const channel = new StatefulChannel('whatsapp');
    const { h, send } = relay(channel);
    await send({ channel: 'whatsapp', to: '+15550001111', text: 'hello' });
    // A ten-minute grace: before the fix shutdown waited all of it for the deliverer.
    const ended = await Promise.race([
      h.queue.shutdown(600_000).then(() => 'ended'),
      sleep(4_000).then(() => 'still waiting'),
    ]);
    expect(ended).toBe('ended');
    expect(rowsForKey(h.store.db, 'sys:send:k1').map((r) => r.status)).toEqual(['pending']);
  });
});
