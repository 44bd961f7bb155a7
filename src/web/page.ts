// The console page, rendered on the server from the same data the JSON endpoint returns, so it reads
// fine without script (or through curl); the inline script then polls and redraws the same parts.
import type { ChannelView, StatusSnapshot } from '../ops/status/snapshot.js';
import {
  CLIENT_SCRIPT,
  costText,
  NO_FAILURES,
  NO_PROCESSES,
  NO_RUNS,
  NO_USAGE,
  RELINK_BUTTON,
  SCAN_HINT,
  startedBy,
  tokensText,
  usageRows,
} from './client.js';

export interface ConsoleData {
  snapshot: StatusSnapshot;
  /** The WhatsApp QR code as a PNG data URL while one waits to be scanned. */
  qr: string | null;
}

export function renderPage(data: ConsoleData, nonce: string, pollMs: number): string {
  const s = data.snapshot;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentwire</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<header><h1>agentwire</h1><p id="health" class="h-${s.health}">${esc(healthLine(s))}</p><p id="conn"></p></header>
<section><h2>WhatsApp</h2><div id="wa">${whatsappBox(
    s.channels.find((c) => c.name === 'whatsapp'),
    data.qr,
  )}</div></section>
<section><h2>Channels</h2><table id="channels"><tbody>${s.channels
    .map((c) => row([c.name, channelText(c)], `data-channel="${esc(c.name)}" class="s-${c.state}"`))
    .join('')}</tbody></table></section>
<section><h2>Queue</h2><p id="queue-summary">${esc(queueLine(s))}</p><table id="queue"><tbody>${s.queue.chats
    .map((q) =>
      row([
        q.chat,
        `${q.pending} waiting`,
        q.active ? `running ${q.active.agent ?? q.active.label ?? ''}`.trimEnd() : '',
      ]),
    )
    .join('')}</tbody></table></section>
<section><h2>Last runs</h2><table id="runs"><thead><tr><th>time (UTC)</th><th>chat</th><th>started by</th><th>agent</th><th>duration</th><th>outcome</th><th>tokens in / out</th><th>cost</th></tr></thead><tbody>${rowsOr(
    s.recentRuns.map((r) => [
      r.at.replace('T', ' ').slice(0, 19),
      r.chat,
      startedBy(r.label),
      r.agent,
      `${(r.durationMs / 1000).toFixed(1)}s`,
      r.outcome,
      tokensText(r),
      costText(r.costUsd),
    ]),
    8,
    NO_RUNS,
  )}</tbody></table></section>
<section><h2>Usage per day</h2><table id="usage"><thead><tr><th>day</th><th>started by</th><th>runs</th><th>tokens in / out</th><th>cost</th></tr></thead><tbody>${rowsOr(
    usageRows(s),
    5,
    NO_USAGE,
  )}</tbody></table></section>
<section><h2>Recent failures</h2><table id="failures"><tbody>${rowsOr(
    s.recentFailures.map((f) => [
      f.at.replace('T', ' ').slice(0, 19),
      f.chat ?? '',
      `${f.kind}: ${f.message}`,
    ]),
    3,
    NO_FAILURES,
  )}</tbody></table></section>
<section><h2>Processes</h2><table id="processes"><tbody>${rowsOr(processRows(s), 4, NO_PROCESSES)}</tbody></table></section>
<footer id="updated">as of ${esc(s.generatedAt)}</footer>
<script nonce="${nonce}">const POLL_MS = ${Math.max(250, Math.round(pollMs))};
${CLIENT_SCRIPT}</script>
</body>
</html>
`;
}

/**
 * The processes on the store (several relays on one database) and the leases each holds: the
 * scheduler, a channel's socket or long poll (`channel:whatsapp`). The client script renders the same.
 */
export function processRows(s: StatusSnapshot): string[][] {
  return (s.processes ?? []).map((p) => [
    p.role,
    `${p.host} pid ${p.pid}`,
    `seen ${p.lastSeen.replace('T', ' ').slice(0, 19)}`,
    p.leads?.length ? `holds ${p.leads.join(', ')}` : '',
  ]);
}

export function healthLine(s: StatusSnapshot): string {
  const enabled = s.channels.filter((c) => c.state !== 'disabled');
  const up = enabled.filter((c) => c.state === 'connected').length;
  const relay = s.relay.running ? `relay pid ${s.relay.pid ?? '?'}` : 'relay not running';
  return `Health: ${s.health} · ${up} of ${enabled.length} channels connected · ${relay}`;
}

export function queueLine(s: StatusSnapshot): string {
  return `${s.queue.pendingTotal} waiting, ${s.queue.activeRuns} running`;
}

export function channelText(c: ChannelView): string {
  switch (c.state) {
    case 'disabled':
      return 'disabled';
    case 'stopped':
      return 'stopped';
    case 'connecting':
      if (c.qrAvailable) return 'waiting for the QR code to be scanned';
      return c.lastError ? `connecting (${c.lastError})` : 'connecting';
    case 'connected':
      return `connected${c.account ? ` as ${c.account}` : ''}${probeLine(c)}`;
    case 'degraded':
      return `degraded (${c.retries ?? 0} retries): ${c.lastError ?? ''}${probeLine(c)}`;
    case 'relink_required':
      return `relink required: ${c.reason ?? ''}`;
    case 'elsewhere':
      return c.holder ?? 'held by another process';
  }
}

/** The last liveness check with its time, as the client script renders it too. */
export function probeLine(c: ChannelView): string {
  if (!c.probe) return '';
  return ` · last check ${c.probe.at.replace('T', ' ').slice(0, 19)}: ${c.probe.ok ? 'ok' : 'failed'} (${c.probe.detail})`;
}

function whatsappBox(c: ChannelView | undefined, qr: string | null): string {
  if (!c || c.state === 'disabled') return '<p>WhatsApp is disabled in the config.</p>';
  if (c.state === 'connected')
    return `<p id="linked" class="ok">WhatsApp linked${c.account ? ` as ${esc(c.account)}` : ''}</p>`;
  if (c.state === 'connecting' && qr)
    return `<img id="qr" alt="WhatsApp QR code" width="264" height="264" src="${esc(qr)}"><p>${esc(SCAN_HINT)}</p>`;
  const relink = c.state === 'relink_required' ? `<button id="relink">${esc(RELINK_BUTTON)}</button>` : '';
  return `<p class="s-${c.state}">${esc(channelText(c))}</p>${relink}`;
}

/** The rows, or one muted row saying the list is empty (an empty table reads as "still loading"). */
function rowsOr(list: string[][], columns: number, empty: string): string {
  if (list.length === 0) return `<tr class="empty"><td colspan="${columns}">${esc(empty)}</td></tr>`;
  return list.map((cells) => row(cells)).join('');
}

function row(cells: string[], attrs = ''): string {
  return `<tr ${attrs}>${cells.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`;
}

export function esc(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:860px;padding:16px;color:#1d2430;background:#fafbfc}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:2px 0 6px;color:#334}
section{background:#fff;border:1px solid #dde2ea;border-radius:8px;padding:10px 14px;margin-top:12px}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:3px 8px 3px 0;border-bottom:1px solid #eef1f5;font-size:14px}
#health{font-weight:600;padding:6px 10px;border-radius:6px;display:inline-block}
.h-ok{background:#dff5e3;color:#145c26}.h-degraded{background:#fff3d6;color:#7a5400}.h-down{background:#fde2e2;color:#8a1c1c}
.ok,.s-connected{color:#145c26}.s-degraded,.s-connecting{color:#7a5400}.s-relink_required{color:#8a1c1c}
#qr{display:block;margin:8px 0;image-rendering:pixelated;border:8px solid #fff}
#conn{color:#8a1c1c;margin:4px 0}.empty td{color:#778;font-style:italic}footer{color:#778;font-size:12px;margin-top:12px}
`;
