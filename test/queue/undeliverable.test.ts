// A message the relay takes while its channel cannot deliver (issue 13, point 6): `send` says it is
// queued and why, and a shutdown no longer waits its whole grace period for a reply nobody can send.
import { afterEach, describe, expect, it } from 'vitest';
import { queuedBecause } from '../../src/channels/send-state.js';
import type { ChannelState } from '../../src/channels/types.js';
import { handedText } from '../../src/cli/send.js';
import { MethodRegistry, registerCoreMethods } from '../../src/control/methods.js';
import { rowsForKey } from '../../src/store/outbox.js';
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
    expect(handedText('whatsapp:+15550001111', answer)).toMatch(
      /^Queued in the running relay's outbox for whatsapp:\+15550001111, not sent yet: WhatsApp needs to be linked again/,
    );
    expect(rowsForKey(h.store.db, 'sys:send:k1').map((r) => r.status)).toEqual(['pending']);
    expect(channel.sent).toHaveLength(0);
  });

  it('answers handed over when the channel is connected', async () => {
    const channel = new StatefulChannel('whatsapp');
    channel.state = { type: 'connected', since: 0 };
    const { send } = relay(channel);
    const answer = await send({ channel: 'whatsapp', to: '+15550001111', text: 'hello' });
    expect(answer).toEqual({ key: 'k1' });
    expect(handedText('whatsapp:+15550001111', answer)).toBe(
      'Handed to the running relay for whatsapp:+15550001111.\n',
    );
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
