// The human view of a StatusSnapshot: pure text, times relative to `now`, nothing unmasked.
import type { ChannelView, StatusSnapshot } from './snapshot.js';

export function renderStatus(s: StatusSnapshot, now: number): string {
  const out: string[] = [];
  if (s.relay.running) {
    const up = s.relay.startedAt ? `, up ${ago(s.relay.startedAt, now)}` : '';
    out.push(`relay: running${s.relay.pid ? ` (pid ${s.relay.pid}${up})` : ''}`);
  } else {
    out.push('relay: not running (showing what the state folder holds; start it with `agentwire relay`)');
  }
  out.push(`health: ${s.health}`, '', 'Channels');
  for (const c of s.channels) out.push(`  ${c.name.padEnd(9)} ${channelLine(c, now)}`);
  if (s.channels.length === 0) out.push('  (none)');

  const q = s.queue;
  const cap = q.maxConcurrentRuns ? ` of ${q.maxConcurrentRuns}` : '';
  out.push('', `Queue: ${q.pendingTotal} waiting, ${q.activeRuns}${cap} running`);
  for (const c of q.chats) {
    const a = c.active;
    const what = a
      ? [a.agent, a.label && a.label !== 'user' ? `(${a.label})` : ''].filter(Boolean).join(' ')
      : '';
    const run = a ? `, running${what ? ` ${what}` : ''} for ${ago(a.startedAt, now)}` : '';
    out.push(`  ${c.chat.padEnd(20)} ${c.pending} waiting${run}`);
  }

  out.push('', `Sessions: ${s.sessions.length}`);
  for (const x of s.sessions.slice(0, 10))
    out.push(
      `  ${(x.chat === '*' ? '* (all chats)' : x.chat).padEnd(20)} ${x.agent.padEnd(9)} last used ${ago(x.lastUsedAt, now)} ago`,
    );
  if (s.sessions.length > 10) out.push(`  … and ${s.sessions.length - 10} more`);

  // Offline, next times are what the scheduler would plan if the relay started now.
  const ifStarted = s.source === 'store' ? ' if the relay started now' : '';
  const hb = s.heartbeat;
  if (!hb.enabled)
    out.push(
      '',
      hb.reason === 'no_target'
        ? 'Heartbeat: off (no heartbeat.target, and WhatsApp, whose self-chat is the default, is disabled)'
        : 'Heartbeat: off',
    );
  else
    out.push(
      '',
      `Heartbeat: ${hb.nextAt ? `next ${when(hb.nextAt, now)}${ifStarted}` : 'no next time'}${hb.target ? ` → ${hb.target}` : ''}`,
    );
  if (s.schedules.length > 0) {
    out.push('Schedules');
    for (const x of s.schedules)
      out.push(
        `  ${x.id.padEnd(16)} ${x.nextAt ? `next ${when(x.nextAt, now)}` : NO_NEXT[x.state ?? 'never']} → ${x.target}`,
      );
  }

  if (s.recentRuns.length > 0) {
    out.push('', 'Recent runs');
    for (const r of s.recentRuns.slice(0, 5))
      out.push(
        `  ${clock(r.at)}  ${r.chat.padEnd(20)} ${r.agent.padEnd(9)} ${secs(r.durationMs).padStart(7)}  ${r.outcome}`,
      );
  }
  out.push('', s.recentFailures.length > 0 ? 'Recent failures' : 'Recent failures: none');
  for (const f of s.recentFailures.slice(0, 10))
    out.push(`  ${clock(f.at)}  ${(f.chat ?? '-').padEnd(20)} ${f.kind}: ${f.message}`);
  return `${out.join('\n')}\n`;
}

const NO_NEXT = {
  done: 'done (one-shot already ran)',
  given_up: 'given up',
  never: 'not scheduled',
} as const;

function channelLine(c: ChannelView, now: number): string {
  const since = c.since ? ` for ${ago(c.since, now)}` : '';
  switch (c.state) {
    case 'disabled':
      return 'disabled';
    case 'stopped':
      if (c.linked === false) return 'not linked yet (run `agentwire login`)';
      return c.linked ? 'stopped (linked)' : 'stopped';
    case 'connecting':
      if (c.qrAvailable)
        return `waiting for the QR code to be scanned${since} (open the web console or run \`agentwire login\`)`;
      return c.lastError
        ? `connecting${since} (${c.lastError}; attempt ${(c.retries ?? 0) + 1})`
        : `connecting${since}`;
    case 'connected':
      return `connected${c.account ? ` as ${c.account}` : ''}${since}${probeText(c, now)}`;
    case 'degraded':
      return `degraded${since}, ${c.retries ?? 0} retries; last error: ${c.lastError ?? 'unknown'}${probeText(c, now)}`;
    case 'relink_required':
      return `relink required: ${c.reason ?? 'logged out'} (run \`agentwire login\`)`;
  }
}

/** The last liveness check, e.g. "; last check 12m 3s ago: answered in 140 ms". */
export function probeText(c: ChannelView, now: number): string {
  if (!c.probe) return '';
  return `; last check ${ago(c.probe.at, now)} ago: ${c.probe.ok ? '' : 'failed, '}${c.probe.detail}`;
}

/** "3h 12m", "45s": the time since an ISO instant. */
export function ago(isoTime: string, now: number): string {
  return span(Math.max(0, now - Date.parse(isoTime)));
}

function when(isoTime: string, now: number): string {
  const d = Date.parse(isoTime) - now;
  return d >= 0 ? `in ${span(d)} (${isoTime})` : `${span(-d)} ago (${isoTime})`;
}

export function span(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

const clock = (isoTime: string): string => isoTime.replace('T', ' ').slice(0, 19);
const secs = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;
