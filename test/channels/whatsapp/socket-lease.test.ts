// WhatsApp's socket under the lease `channel:whatsapp` (several relays on one store): the channel
// opens no socket until this process gains the lease, closes it when the lease moves to another
// process, shows who holds it meanwhile, and opens a new one when it gains the lease again.
import { describe, expect, it } from 'vitest';
import type { SingleConsumer } from '../../../src/channels/single.js';
import type { Fence } from '../../../src/store/ownership.js';
import { waitFor } from '../../e2e/helpers.js';
import { setup } from './harness.js';

describe('the WhatsApp socket under its lease', () => {
  it('connects only while this process holds the lease, and says who holds it otherwise', async () => {
    let on: { gained(fence: Fence): void; lost(): void } | undefined;
    let released = 0;
    const single: SingleConsumer = {
      lead: (o) => {
        on = o;
        return async () => {
          released++;
        };
      },
      heldBy: () => 'held by host-b pid 7',
      stillHolds: async () => true,
    };
    const h = await setup({ deps: { single } });
    await h.channel.start(async () => ({ type: 'stored', inboxId: 1 }));
    // Another relay holds the socket: none opened here.
    expect(h.sockets).toHaveLength(0);
    expect(h.channel.status().type).toBe('elsewhere');
    // Fences are checked by the store (test/store/whatsapp-fence-suite.ts); undefined here: no lease table.
    on?.gained(undefined as unknown as Fence);
    expect(await waitFor(() => h.sockets.length === 1)).toBe(true);
    h.sock().open();
    expect(await waitFor(() => h.channel.status().type === 'connected')).toBe(true);
    // The lease moved (this process was paused past it): the socket closes, the holder is named.
    on?.lost();
    expect(await waitFor(() => h.channel.status().type === 'elsewhere')).toBe(true);
    expect(h.sockets[0]?.ended).toBe(true);
    expect(h.channel.status()).toMatchObject({ type: 'elsewhere', holder: 'held by host-b pid 7' });
    // Gained again: a new socket.
    on?.gained(undefined as unknown as Fence);
    expect(await waitFor(() => h.sockets.length === 2)).toBe(true);
    await h.channel.stop();
    expect(h.sockets[1]?.ended).toBe(true);
    expect(released).toBe(1);
  });

  it('names the holder once the lease rounds know it, though nothing moved meanwhile', async () => {
    let holder: string | undefined;
    const single: SingleConsumer = {
      lead: () => async () => undefined,
      heldBy: () => holder,
      stillHolds: async () => false,
    };
    const h = await setup({ deps: { single } });
    await h.channel.start(async () => ({ type: 'stored', inboxId: 1 }));
    // Set before this process's first round has read who holds the socket.
    expect(h.channel.status()).toMatchObject({ type: 'elsewhere', holder: 'waiting for the socket lease' });
    holder = 'held by host-c pid 9';
    expect(h.channel.status()).toMatchObject({ type: 'elsewhere', holder: 'held by host-c pid 9' });
    await h.channel.stop();
  });
});
