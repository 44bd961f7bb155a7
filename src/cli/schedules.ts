// `agentwire schedules`: the heartbeat, every schedule and every task agents scheduled (`task:<id>`,
// docs/tools.md) with its next run, from the config and the stored state. Needs no running relay,
// and creates nothing when the store does not exist yet.
import type { Command } from 'commander';
import { formatDuration } from '../core/interval.js';
import { parseChatKey } from '../core/types.js';
import { buildListing, type JobRow, type Listing } from '../heartbeat/listing.js';
import { formatInstant } from '../heartbeat/prompt.js';
import { storedDefaultTarget } from '../heartbeat/target.js';
import { taskSchedule } from '../heartbeat/tasks.js';
import { WAITING_FOR_LINK } from '../ops/status/render.js';
import { cleanText, maskChat } from '../ops/status/snapshot.js';
import { storeAdmin, storeConfigFor } from '../store/open.js';
import { type GlobalOptions, loadContext } from './context.js';

export function register(program: Command): void {
  program
    .command('schedules')
    .description('list the heartbeat and the schedules with their next run times')
    .option('--json', 'print JSON (times as ISO 8601)')
    .action(async (opts: { json?: boolean }) => {
      const ctx = loadContext(program.opts<GlobalOptions>());
      const now = Date.now();
      // Read-only: listing never creates or migrates the store.
      const facts = await (await storeAdmin(storeConfigFor(ctx.paths, ctx.config.store))).statusFacts();
      const tasks = (facts?.tasks ?? []).map(taskSchedule);
      const paused = new Set(
        (facts?.tasks ?? []).filter((t) => t.pausedAt !== undefined).map((t) => taskSchedule(t).id),
      );
      const listing: Listing = markPaused(
        buildListing(
          { ...ctx.config, schedules: [...ctx.config.schedules, ...tasks] },
          (job) => facts?.jobStates.get(job),
          now,
          () => storedDefaultTarget(ctx.config, facts),
        ),
        paused,
      );
      process.stdout.write(
        opts.json ? `${JSON.stringify(toJson(listing), null, 2)}\n` : renderListing(listing, now),
      );
    });
}

/** Tasks paused with pause_task: shown as paused, with no next time. */
export function markPaused(l: Listing, ids: ReadonlySet<string>): Listing {
  return {
    ...l,
    schedules: l.schedules.map((r) =>
      ids.has(r.id) ? { ...r, state: 'paused' as const, nextAt: undefined } : r,
    ),
  };
}

/** Chat keys are masked as everywhere else (`whatsapp:…4567`); the default-target label stays words. */
export const shownTarget = (target: string): string => (parseChatKey(target) ? maskChat(target) : target);

const machineZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

function when(row: Pick<JobRow, 'state' | 'nextAt' | 'timeZone'>, now: number): string {
  const zone = row.timeZone ?? machineZone();
  switch (row.state) {
    case 'scheduled':
      return `next ${formatInstant(row.nextAt as number, zone)} (in ${formatDuration((row.nextAt as number) - now)})`;
    case 'due_now':
      return `due now (was due ${formatInstant(row.nextAt as number, zone)}; fires when the relay runs)`;
    case 'done':
      return 'done (one-shot already ran)';
    case 'given_up':
      return 'given up (cut off twice by a stop)';
    case 'never':
      return 'never fires again';
    case 'paused':
      return 'paused (resume_task resumes it)';
  }
}

function lastLine(row: Pick<JobRow, 'lastAt' | 'lastOutcome' | 'lastDetail' | 'timeZone'>): string {
  if (row.lastAt === undefined) return '    last: never ran';
  const zone = row.timeZone ?? machineZone();
  const detail = row.lastDetail ? ` — ${cleanText(row.lastDetail)}` : '';
  return `    last: ${formatInstant(row.lastAt, zone)}, ${row.lastOutcome ?? 'unknown'}${detail}`;
}

const runsLine = (row: Pick<JobRow, 'runsWith'>): string[] =>
  row.runsWith ? [`    runs with ${row.runsWith}`] : [];

export function renderListing(l: Listing, now: number): string {
  const out: string[] = [];
  const h = l.heartbeat;
  if (h.enabled) {
    const hours = h.activeHours ? `, active ${h.activeHours}` : '';
    out.push(
      h.waitingFor === 'whatsapp_link'
        ? `heartbeat: every ${h.everyMinutes} min${hours}`
        : `heartbeat: every ${h.everyMinutes} min → ${shownTarget(h.target)}${hours}`,
      `    ${h.waitingFor === 'whatsapp_link' ? WAITING_FOR_LINK : when(h, now)}`,
      ...runsLine(h),
      lastLine(h),
    );
  } else
    out.push(
      h.reason === 'no_target'
        ? 'heartbeat: off (no heartbeat.target, and WhatsApp, whose self-chat is the default, is disabled)'
        : 'heartbeat: off',
    );
  if (l.schedules.length === 0) out.push('schedules: none configured, and no tasks scheduled by an agent');
  for (const s of l.schedules) {
    out.push(
      `${s.id}: ${s.timing} → ${shownTarget(s.target)}`,
      `    ${when(s, now)}`,
      ...runsLine(s),
      lastLine(s),
    );
  }
  for (const p of l.problems) out.push(`problem: ${p}`);
  return `${out.join('\n')}\n`;
}

function toJson(l: Listing): unknown {
  const row = (r: Omit<JobRow, 'id' | 'timing'>) => ({
    ...r,
    target: shownTarget(r.target),
    ...(r.lastDetail !== undefined && { lastDetail: cleanText(r.lastDetail) }),
    nextAt: iso(r.nextAt),
    lastAt: iso(r.lastAt),
  });
  return {
    heartbeat: l.heartbeat.enabled ? row(l.heartbeat) : l.heartbeat,
    schedules: l.schedules.map(row),
    problems: l.problems,
  };
}
