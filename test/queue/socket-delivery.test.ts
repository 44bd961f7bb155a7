// A WhatsApp chat's replies are sent by the process holding the socket (the lease `channel:whatsapp`),
// whichever process ran the chat: two processes on one store, A runs the chat while B holds the
// socket; A's reply is sent once, by B, told through an `outbox` notification.
import { describe, expect, it } from 'vitest';
import type { ChatKey } from '../../src/core/types.js';
import type { OwnershipTimings } from '../../src/queue/process-owner.js';
import { inbound } from '../store/helpers.js';
import { ok } from './helpers.js';
import { useProcs } from './procs-rig.js';

const CHAT: ChatKey = 'whatsapp:+15551234567';
const LIVE: OwnershipTimings = { leaseMs: 400, renewMs: 50, pollMs: 20 };
const LEAD = 'channel:whatsapp';
const sendLead = (channel: string) => (channel === 'whatsapp' ? LEAD : undefined);
const { newFile, proc } = useProcs();

describe("a WhatsApp chat's replies, with the socket in another process", () => {
  it('a reply of a run on A, while B holds the socket, is sent once, by B', async () => {
    const file = newFile();
    const b = await proc(file, LIVE, undefined, { channel: 'whatsapp', sendLead });
    const a = await proc(file, LIVE, undefined, { channel: 'whatsapp', sendLead });
    const gained: string[] = [];
    b.owner.lead(LEAD, { gained: () => gained.push('b'), lost: () => undefined });
    await b.owner.claimLeads();
    a.owner.lead(LEAD, { gained: () => gained.push('a'), lost: () => undefined });
    await a.owner.claimLeads();
    expect(gained).toEqual(['b']);

    const stored = await a.queue.handleInbound(
      inbound({ channel: 'whatsapp', chatId: '+15551234567', messageId: 'w1', text: 'hi' }),
    );
    expect(stored.type).toBe('stored');
    await a.agent.untilCalls(1);
    a.agent.pending[0]?.finish(ok('answer from A'));
    await b.channel.untilSent(1);
    await a.queue.whenIdle();
    await b.queue.whenIdle();
    expect(await a.store.queue.nextUnsent(CHAT)).toBeUndefined();
    // Another round of B's notifications and deliveries sends nothing more.
    await b.queue.deliverer.kickAll();
    await b.queue.deliverer.idle();
    expect(b.channel.texts()).toEqual(['answer from A']);
    expect(a.channel.texts()).toEqual([]);
    expect(b.agent.calls).toHaveLength(0);
  });
});
