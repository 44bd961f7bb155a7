// A channel's `elsewhere` state names the one consumer as the lease rounds know it now, not as they
// knew it when the state was set (often before this process's first round had read the holder).
import { describe, expect, it } from 'vitest';
import { type SingleConsumer, withLiveHolder } from '../../src/channels/single.js';
import type { ChannelState } from '../../src/channels/types.js';

const single = (heldBy: string | undefined): SingleConsumer => ({
  lead: () => async () => undefined,
  heldBy: () => heldBy,
  stillHolds: async () => false,
});
const elsewhere: ChannelState = { type: 'elsewhere', since: 5, holder: 'held by another process' };
const connected: ChannelState = { type: 'connected', since: 5 };

describe('withLiveHolder', () => {
  it.each([
    [
      'elsewhere, the holder now known',
      elsewhere,
      single('held by host-b pid 7'),
      { ...elsewhere, holder: 'held by host-b pid 7' },
    ],
    ['elsewhere, nobody known yet: the text set with the state', elsewhere, single(undefined), elsewhere],
    ['elsewhere, no lease at all (one process)', elsewhere, undefined, elsewhere],
    ['any other state is left alone', connected, single('held by host-b pid 7'), connected],
  ])('%s', (_name, state, s, want) => {
    expect(withLiveHolder(state, s)).toEqual(want);
  });
});
