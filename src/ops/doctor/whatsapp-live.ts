// What the running relay says about its WhatsApp link: the one place doctor can see whether the
// socket is up, whether WhatsApp can be reached, and what the liveness watchdog's last check found.
// Stored credentials alone (whatsapp.ts) say none of that.
import type { ChannelState, ProbeResult } from '../../channels/types.js';
import type { Paths } from '../../config/paths.js';
import { callControl } from '../../control/client.js';
import type { RelayStatus } from '../../control/methods.js';
import { cleanText } from '../status/snapshot.js';
import { type Finding, fail, ok, warn } from './types.js';

const CHECK = 'whatsapp:link';

function lastCheck(p: ProbeResult | undefined, now: number): string {
  if (!p) return 'no liveness check yet (the link has not been quiet long enough to need one)';
  const ago = Math.max(0, Math.round((now - p.at) / 60_000));
  const when = `${new Date(p.at).toISOString()} (${ago} min ago)`;
  return `last liveness check ${when}: ${p.ok ? 'ok' : 'failed'}, ${cleanText(p.detail)}`;
}

export function checkWhatsappLive(state: ChannelState | undefined, now: number): Finding {
  if (!state)
    return warn(CHECK, 'the running relay did not report its WhatsApp link', 'run `agentwire status`');
  switch (state.type) {
    case 'connected':
      return ok(CHECK, `connected; ${lastCheck(state.probe, now)}`);
    case 'degraded':
      return fail(
        CHECK,
        `degraded: ${cleanText(state.lastError)}; ${lastCheck(state.probe, now)}`,
        'the relay keeps reconnecting by itself; if it lasts, check the network and the phone (WhatsApp → Linked devices), then restart the relay',
      );
    case 'connecting':
      if (state.qr)
        return warn(
          CHECK,
          'waiting for the QR code to be scanned',
          'run `agentwire login`, or open the web console',
        );
      return state.lastError
        ? fail(
            CHECK,
            `${cleanText(state.lastError)} (attempt ${(state.retries ?? 0) + 1}, retrying with backoff)`,
            'check this machine’s network and DNS (can it resolve web.whatsapp.com?); the relay retries by itself',
          )
        : ok(CHECK, 'connecting');
    case 'relink_required':
      return fail(
        CHECK,
        `relink required: ${cleanText(state.reason)}`,
        'run `agentwire login` (it goes through the running relay)',
      );
    case 'elsewhere':
      return ok(CHECK, `the socket runs in another process on this store: ${cleanText(state.holder)}`);
    case 'stopped':
    case 'disabled':
      return ok(CHECK, state.type);
  }
}

/** The relay's WhatsApp state through its control socket's `status` method. */
export async function liveWhatsappFromRelay(paths: Pick<Paths, 'socket'>): Promise<ChannelState | undefined> {
  const r = await callControl(paths.socket, 'status', undefined, { timeoutMs: 5_000 });
  return r.ok ? (r.result as RelayStatus).channels.whatsapp : undefined;
}
