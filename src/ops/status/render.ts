// The human view of a StatusSnapshot: pure text, times relative to `now`, nothing unmasked.
import type { ChannelView, StatusSnapshot, UsageSums, WarmView } from './snapshot.js';

export function renderStatus(s: StatusSnapshot, now: number): string {
  const out: string[] = [];
  if (s.relay.running) {
    const up = s.relay.startedAt ? `, up ${ago(s.relay.startedAt, now)}` : '';
    const v = s.relay.version ? `, agentwire ${s.relay.version}` : '';
    out.push(`relay: running${s.relay.pid ? ` (pid ${s.relay.pid}${up}${v})` : ''}`);
    // After an upgrade the old relay keeps running the old code until it is restarted.
    if (s.cli && s.relay.version && s.cli.version !== s.relay.version)
      out.push(`  this agentwire is ${s.cli.version}: restart the relay to run it`);
  } else {
    out.push('relay: not running (showing what the state folder holds; start it with `agentwire relay`)');
    // The same words as doctor's relay check: both read the lock through store/home-lock.ts probeLock.
    if (s.relay.staleLock)
      out.push(
        '  the relay lock was left by a relay that is gone (killed or crashed); the next start takes it over',
      );
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

  if (s.warm) out.push(...warmLines(s.warm));
  for (const w of s.waitingAnswers ?? [])
    out.push(
      `  ${w.chat.padEnd(20)} waiting for an answer to ${w.type === 'approval' ? 'an approval' : 'a question'}, ${w.shownAt ? `asked ${ago(w.shownAt, now)} ago` : 'not shown yet'}`,
    );

  const r = s.replies;
  if (r.unsent > 0 || r.expired > 0) {
    const last = r.lastExpiredAt ? `, last ${ago(r.lastExpiredAt, now)} ago` : '';
    const expired = r.expired > 0 ? `, ${r.expired} given up after the retry time${last}` : '';
    out.push(`Replies: ${r.unsent} unsent${expired}`);
  }

  if (s.processes?.length) {
    // Several relays on one database (docs/scale-out.md): each with its host, and its config's short
    // fingerprint, which differs when two run with different configs.
    out.push('', `Processes: ${s.processes.length}`);
    for (const p of s.processes)
      out.push(
        `  ${p.role.padEnd(6)} ${`${p.host} pid ${p.pid}`.padEnd(28)} up ${ago(p.startedAt, now)}, seen ${ago(p.lastSeen, now)} ago, config ${p.config}, schema ${p.schemaVersion}${p.leads ? `, leads ${p.leads.join(', ')}` : ''}`,
      );
  }
  if (s.leases?.length) {
    // Who runs what only one process may: the scheduler, each channel's socket or long poll.
    out.push('', 'Leases:');
    for (const l of s.leases)
      out.push(
        `  ${l.name.padEnd(20)} ${l.pid !== undefined ? `held by ${l.host} pid ${l.pid}` : 'held by a process gone from the registry'}`,
      );
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
  else if (hb.waitingFor === 'whatsapp_link') out.push('', `Heartbeat: ${WAITING_FOR_LINK}`);
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
  if (s.usage.days.length > 0) {
    out.push('', 'Usage per day (as the CLIs report it)');
    for (const d of s.usage.days.slice(0, 3)) {
      out.push(`  ${d.day}  ${usageLine(d)}`);
      if (d.byLabel.length > 1 || d.byLabel[0]?.label !== 'user')
        for (const l of d.byLabel) out.push(`    ${l.label.padEnd(18)} ${usageLine(l)}`);
    }
  }
  out.push('', s.recentFailures.length > 0 ? 'Recent failures' : 'Recent failures: none');
  for (const f of s.recentFailures.slice(0, 10))
    out.push(`  ${clock(f.at)}  ${(f.chat ?? '-').padEnd(20)} ${f.kind}: ${f.message}`);
  return `${out.join('\n')}\n`;
}

/** Said by `status` and `schedules` alike. */
export const WAITING_FOR_LINK =
  'waiting for WhatsApp to be linked (its self-chat is the default target): every tick is skipped until then; run `agentwire login`, or set heartbeat.target';

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
    case 'elsewhere':
      return `${c.holder ?? 'held by another process'}${since} (this process sends only where it can)`;
  }
}

/** The last liveness check, e.g. "; last check 12m 3s ago: answered in 140 ms". */
export function probeText(c: ChannelView, now: number): string {
  if (!c.probe) return '';
  return `; last check ${ago(c.probe.at, now)} ago: ${c.probe.ok ? '' : 'failed, '}${c.probe.detail}`;
}

/** The pool's budget, each chat's warm session (chat masked, CLI, its process, age, idle time, memory) and the CLIs running cold. */
function warmLines(w: WarmView): string[] {
  const mib = (b: number) => `${Math.round(b / 1048576)} MB`;
  const budget =
    w.maxMemoryBytes !== undefined
      ? `, ${mib(w.usedBytes ?? 0)} of ${mib(w.maxMemoryBytes)}${w.maxProcessBytes !== undefined ? ` (${mib(w.maxProcessBytes)} a process)` : ''}`
      : '';
  const starts = w.starts !== undefined ? `, ${w.starts} started` : '';
  // Chats may share a process (agents.warm.sessionsPerProcess): the cap counts processes.
  const live = new Set(w.processes.map((p, i) => p.pid ?? `?${i}`)).size;
  const chats = w.processes.length > live ? `, serving ${w.processes.length} chats` : '';
  const out = ['', `Warm agents: ${live} of ${w.maxProcesses} live${chats}${budget}${starts}`];
  for (const p of w.processes) {
    const mb = p.rssBytes !== undefined ? `, ${Math.round(p.rssBytes / 1048576)} MB` : '';
    const state = p.busy ? 'busy' : `idle ${span(p.idleSeconds * 1000)}`;
    out.push(
      `  ${p.chat.padEnd(20)} ${p.agent} (pid ${p.pid ?? '?'}), up ${span(p.ageSeconds * 1000)}, ${state}${mb}`,
    );
  }
  for (const f of w.fallbacks)
    out.push(
      `  ${f.agent} runs cold: its warm start failed (${f.reason}); \`agentwire agent warm-reset\` tries live again`,
    );
  return out;
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

/** "12 runs, 34,567 in / 2,345 out tokens, $0.1234": only what was reported is summed, and said so. */
export function usageLine(u: UsageSums): string {
  const parts = [`${u.runs} run${u.runs === 1 ? '' : 's'}`];
  if (u.runsWithUsage > 0) {
    const of = u.runsWithUsage < u.runs ? ` (${u.runsWithUsage} reported)` : '';
    parts.push(
      `${u.inputTokens.toLocaleString('en-US')} in / ${u.outputTokens.toLocaleString('en-US')} out tokens${of}`,
    );
  } else parts.push('no tokens reported');
  if (u.runsWithCost > 0) parts.push(`$${u.costUsd.toFixed(4)}`);
  return parts.join(', ');
}
