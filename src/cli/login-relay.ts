// `agentwire login` while the relay runs: the relay owns the WhatsApp link, so the login
// asks it to start linking (`whatsapp.link` on the control socket) and follows the QR code in its
// `status` answers, drawing each new code in the terminal, until the link opens or fails. Baileys is
// not loaded here: the relay holds the socket.
import QRCode from 'qrcode';
import type { ChannelState } from '../channels/types.js';
import { LINK_METHOD, type LinkStart } from '../channels/whatsapp/link-control.js';
import type { ControlCall } from '../control/client.js';
import type { RelayStatus } from '../control/methods.js';

export interface RelayLoginDeps {
  call: (method: string, params?: unknown) => Promise<ControlCall>;
  out: (text: string) => void;
  renderQr?: (qr: string) => Promise<string>;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  timeoutMs?: number;
  pollMs?: number;
}

export type RelayLoginResult =
  | { ok: true; account?: string; alreadyLinked: boolean }
  | { ok: false; error: string };

const SCAN = 'Scan with your phone: WhatsApp → Settings → Linked devices → Link a device.\n';

export async function loginViaRelay(d: RelayLoginDeps): Promise<RelayLoginResult> {
  const started = await d.call(LINK_METHOD);
  if (!started.ok) return { ok: false, error: `The running relay could not start linking: ${started.error}` };
  const link = started.result as LinkStart;
  if (link.type === 'linked')
    return { ok: true, alreadyLinked: true, ...(link.account && { account: link.account }) };
  if (link.type === 'unavailable') return { ok: false, error: link.reason };
  const render = d.renderQr ?? ((qr: string) => QRCode.toString(qr, { type: 'terminal', small: true }));
  const sleep = d.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = d.now ?? Date.now;
  const until = now() + (d.timeoutMs ?? 5 * 60_000);
  let shownQr: string | undefined;
  let shownError: string | undefined;
  d.out('The relay is running: linking through it (the web console shows the same QR code).\n');
  while (now() < until) {
    const r = await d.call('status');
    if (!r.ok) return { ok: false, error: `The relay stopped answering: ${r.error}` };
    const wa: ChannelState | undefined = (r.result as RelayStatus).channels.whatsapp;
    switch (wa?.type) {
      case 'connected':
        return { ok: true, alreadyLinked: false, ...(wa.account && { account: wa.account }) };
      case 'relink_required':
        return { ok: false, error: wa.reason };
      case 'elsewhere':
        // Asking for the socket's lease (the relay just started): its answer comes within a round.
        if (wa.holder.startsWith('waiting')) break;
        return { ok: false, error: `The WhatsApp socket is ${wa.holder}: run \`agentwire login\` there.` };
      case 'connecting':
        if (wa.qr && wa.qr !== shownQr) {
          shownQr = wa.qr;
          d.out(`${await render(wa.qr)}\n${SCAN}`);
        } else if (!wa.qr && wa.lastError && wa.lastError !== shownError) {
          shownError = wa.lastError;
          d.out(`${wa.lastError} (the relay keeps retrying)\n`);
        }
        break;
      case undefined:
        return { ok: false, error: 'WhatsApp is not running in the relay' };
      default:
        break;
    }
    await sleep(d.pollMs ?? 1_000);
  }
  return { ok: false, error: 'Linking timed out.' };
}
