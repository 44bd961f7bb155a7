// One health word for monitors and humans. "Linked" alone is not health (a relay can hold creds and
// still have no live socket), so only a `connected` state counts as up, or `elsewhere`: a channel
// whose one consumer another relay on the store runs (docs/scale-out.md) is as it should be here, and
// a load balancer must keep sending this relay its webhooks.

/** The relay's overall state, as `/healthz` and `status` show it. */
export type Health = 'ok' | 'degraded' | 'down';

export function healthOf(relayRunning: boolean, channels: readonly { state: string }[]): Health {
  if (!relayRunning) return 'down';
  const enabled = channels.filter((c) => c.state !== 'disabled');
  if (enabled.length === 0) return 'ok';
  const up = enabled.filter((c) => c.state === 'connected' || c.state === 'elsewhere').length;
  if (up === enabled.length) return 'ok';
  return up > 0 ? 'degraded' : 'down';
}
