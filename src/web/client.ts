// The console's inline script: polls the JSON endpoint and redraws with textContent only (error
// texts and account names are never parsed as HTML). Plain ES2017, no build step.
import type { StatusSnapshot, UsageSums } from '../ops/status/snapshot.js';

export const SCAN_HINT =
  'On your phone: WhatsApp → Settings → Linked devices → Link a device, then scan this code. WhatsApp replaces it every 20 seconds or so; this page follows.';

export const NO_RUNS = 'No runs yet.';
export const RELINK_BUTTON = 'Link again: show a new QR code';
export const NO_FAILURES = 'None.';
export const NO_PROCESSES = 'No process registered on the store.';

/** What started a run, in words: a message from the chat, the heartbeat, or a schedule by id. */
export function startedBy(label: string | undefined): string {
  if (label === undefined || label === 'user') return 'message';
  return label.startsWith('schedule:') ? `schedule ${label.slice('schedule:'.length)}` : label;
}

export const NO_USAGE = 'No runs recorded yet.';

/** A run's or a day's tokens, "12,345 / 678" (in / out), or '' when the CLI reported none. */
export function tokensText(u: { inputTokens?: number; outputTokens?: number }): string {
  if (u.inputTokens === undefined && u.outputTokens === undefined) return '';
  return `${(u.inputTokens ?? 0).toLocaleString('en-US')} / ${(u.outputTokens ?? 0).toLocaleString('en-US')}`;
}

/** "$0.0123", or '' when no cost was reported. */
export function costText(costUsd: number | undefined): string {
  return costUsd === undefined ? '' : `$${costUsd.toFixed(4)}`;
}

/** The rows of the usage table: per day, its total, then each label that day. */
export function usageRows(s: StatusSnapshot): string[][] {
  const out: string[][] = [];
  for (const d of s.usage.days) {
    const cells = (label: string, u: UsageSums) => [
      label === '' ? d.day : '',
      label === '' ? 'all' : startedBy(label),
      String(u.runs),
      u.runsWithUsage > 0 ? tokensText(u) : '',
      u.runsWithCost > 0 ? costText(u.costUsd) : '',
    ];
    out.push(cells('', d));
    for (const l of d.byLabel) out.push(cells(l.label, l));
  }
  return out;
}

export const CLIENT_SCRIPT = `
const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
const rows = (tbody, list, columns, empty) => {
  if (list.length === 0 && empty) { const tr = el('tr', undefined, 'empty'); const td = el('td', empty); td.colSpan = columns; tr.append(td); tbody.replaceChildren(tr); return; }
  tbody.replaceChildren(...list.map((cells) => { const tr = el('tr'); for (const c of cells) tr.append(el('td', c)); return tr; }));
};
// The same words as startedBy() above, which renders the first draw on the server.
const startedBy = (label) => (label === undefined || label === 'user') ? 'message' : (label.startsWith('schedule:') ? 'schedule ' + label.slice(9) : label);
const clock = (iso) => iso.replace('T', ' ').slice(0, 19);
// The same words as tokensText(), costText() and usageRows() above.
const tokensText = (u) => (u.inputTokens === undefined && u.outputTokens === undefined) ? '' : (u.inputTokens || 0).toLocaleString('en-US') + ' / ' + (u.outputTokens || 0).toLocaleString('en-US');
const costText = (c) => c === undefined ? '' : '$' + c.toFixed(4);
const usageRows = (s) => s.usage.days.flatMap((d) => {
  const cells = (label, u) => [label === '' ? d.day : '', label === '' ? 'all' : startedBy(label), String(u.runs), u.runsWithUsage > 0 ? tokensText(u) : '', u.runsWithCost > 0 ? costText(u.costUsd) : ''];
  return [cells('', d), ...d.byLabel.map((l) => cells(l.label, l))];
});
const HINT = ${JSON.stringify(SCAN_HINT)};
// The same words as probeLine() in page.ts.
const probeLine = (c) => c.probe ? ' · last check ' + clock(c.probe.at) + ': ' + (c.probe.ok ? 'ok' : 'failed') + ' (' + c.probe.detail + ')' : '';
function channelText(c) {
  switch (c.state) {
    case 'connecting': return c.qrAvailable ? 'waiting for the QR code to be scanned' : (c.lastError ? 'connecting (' + c.lastError + ')' : 'connecting');
    case 'connected': return 'connected' + (c.account ? ' as ' + c.account : '') + probeLine(c);
    case 'degraded': return 'degraded (' + (c.retries || 0) + ' retries): ' + (c.lastError || '') + probeLine(c);
    case 'relink_required': return 'relink required: ' + (c.reason || '');
    case 'elsewhere': return c.holder || 'held by another process';
    default: return c.state;
  }
}
function renderWhatsapp(c, qr) {
  const box = $('wa');
  if (!c || c.state === 'disabled') { box.replaceChildren(el('p', 'WhatsApp is disabled in the config.')); return; }
  if (c.state === 'connected') { const p = el('p', 'WhatsApp linked' + (c.account ? ' as ' + c.account : ''), 'ok'); p.id = 'linked'; box.replaceChildren(p); return; }
  if (c.state === 'connecting' && qr) {
    let img = $('qr');
    if (!img) { img = el('img'); img.id = 'qr'; img.alt = 'WhatsApp QR code'; img.width = 264; img.height = 264; box.replaceChildren(img, el('p', HINT)); }
    if (img.getAttribute('src') !== qr) img.setAttribute('src', qr);
    return;
  }
  const parts = [el('p', channelText(c), 's-' + c.state)];
  if (c.state === 'relink_required') {
    // Relinking without a terminal: the relay drops the dead link and its new QR code shows here.
    const b = el('button', ${JSON.stringify(RELINK_BUTTON)});
    b.id = 'relink';
    b.addEventListener('click', async () => {
      b.disabled = true;
      try { await fetch('/api/whatsapp/link', { method: 'POST', credentials: 'same-origin', headers: { 'X-Agentwire-Action': 'link' } }); } catch (e) { b.disabled = false; }
    });
    parts.push(b);
  }
  box.replaceChildren(...parts);
}
function render(d) {
  const s = d.snapshot;
  const enabled = s.channels.filter((c) => c.state !== 'disabled');
  const up = enabled.filter((c) => c.state === 'connected').length;
  const h = $('health');
  h.textContent = 'Health: ' + s.health + ' · ' + up + ' of ' + enabled.length + ' channels connected · ' + (s.relay.running ? 'relay pid ' + (s.relay.pid || '?') : 'relay not running');
  h.className = 'h-' + s.health;
  renderWhatsapp(s.channels.find((c) => c.name === 'whatsapp'), d.qr);
  const ch = $('channels').tBodies[0];
  ch.replaceChildren(...s.channels.map((c) => { const tr = el('tr', undefined, 's-' + c.state); tr.dataset.channel = c.name; tr.append(el('td', c.name), el('td', channelText(c))); return tr; }));
  $('queue-summary').textContent = s.queue.pendingTotal + ' waiting, ' + s.queue.activeRuns + ' running';
  rows($('queue').tBodies[0], s.queue.chats.map((q) => [q.chat, q.pending + ' waiting', q.active ? ('running ' + (q.active.agent || q.active.label || '')).trim() : '']));
  rows($('runs').tBodies[0], s.recentRuns.map((r) => [clock(r.at), r.chat, startedBy(r.label), r.agent, (r.durationMs / 1000).toFixed(1) + 's', r.outcome, tokensText(r), costText(r.costUsd)]), 8, ${JSON.stringify(NO_RUNS)});
  rows($('usage').tBodies[0], usageRows(s), 5, ${JSON.stringify(NO_USAGE)});
  rows($('failures').tBodies[0], s.recentFailures.map((f) => [clock(f.at), f.chat || '', f.kind + ': ' + f.message]), 3, ${JSON.stringify(NO_FAILURES)});
  // The same rows as processRows() in page.ts.
  rows($('processes').tBodies[0], (s.processes || []).map((p) => [p.role, p.host + ' pid ' + p.pid, 'seen ' + clock(p.lastSeen), p.leads && p.leads.length ? 'holds ' + p.leads.join(', ') : '']), 4, ${JSON.stringify(NO_PROCESSES)});
  $('updated').textContent = 'as of ' + s.generatedAt;
}
async function tick() {
  try {
    const r = await fetch('/api/status', { cache: 'no-store', credentials: 'same-origin' });
    if (r.status === 401) { $('conn').textContent = 'The console token is no longer accepted: open the URL the relay printed.'; return; }
    render(await r.json());
    $('conn').textContent = '';
  } catch (e) {
    $('conn').textContent = 'The relay is not answering; retrying…';
  }
  setTimeout(tick, POLL_MS);
}
setTimeout(tick, POLL_MS);
`;
