// `agentwire heartbeat [--to CHAT] [--dry-run] [--json]`: fires one heartbeat now. Through the running
// relay when there is one (control socket method `heartbeat`, so it uses the relay's run slots and
// outbox and never runs beside a user run); otherwise in this process, when a direct runner is
// wired in; otherwise it says that a relay is needed.
import type { Command } from 'commander';
import { callControl } from '../control/client.js';
import type { ChatKey, SystemRunner } from '../core/types.js';
import { systemClock } from '../heartbeat/clock.js';
import { fireHeartbeatOnce, HEARTBEAT_METHOD, type HeartbeatMethodResult } from '../heartbeat/control.js';
import { checkEnv, createRunCheck } from '../heartbeat/run-check.js';
import { checkHeartbeatTarget } from '../heartbeat/target.js';
import { maskChat } from '../ops/status/snapshot.js';
import type { JobStateStore } from '../store/job-states.js';
import { type Context, ExitError, type GlobalOptions, loadContext } from './context.js';

export type RelayCall =
  | { type: 'ok'; result: unknown }
  /** Nothing listens on the socket: no relay runs. */
  | { type: 'no_relay' }
  | { type: 'error'; message: string };

export interface DirectRunner {
  runner: SystemRunner;
  /** The default heartbeat target (the linked WhatsApp self-chat) as far as this process knows it. */
  defaultTarget: () => ChatKey | undefined;
  /** Where the manual heartbeat reads its stored state (it writes none: `manualOnly`). */
  store: { jobStates: JobStateStore };
  close(): Promise<void>;
}

export interface HeartbeatCliDeps {
  /** Builds the core's SystemRunner in this process (store, sessions, agent layer, outbox). */
  directRunner?: (ctx: Context) => Promise<DirectRunner>;
  callRelay?: (socket: string, method: string, params: unknown, timeoutMs: number) => Promise<RelayCall>;
}

interface Options {
  to?: string;
  dryRun?: boolean;
  json?: boolean;
}

export function register(program: Command, deps: HeartbeatCliDeps = {}): void {
  program
    .command('heartbeat')
    .description('fire one heartbeat now and print what was (or, with --dry-run, would be) sent')
    .option(
      '--to <chat>',
      'chat key to check in with instead of heartbeat.target, e.g. whatsapp:+15551234567',
    )
    .option('--dry-run', 'run the agent but send nothing; print what would be sent')
    .option('--json', 'print the outcome as JSON')
    .action(async (opts: Options) => {
      const ctx = loadContext(program.opts<GlobalOptions>(), process.env, { logFile: 'command' });
      if (opts.to !== undefined) {
        const t = checkHeartbeatTarget(opts.to);
        if (!t.ok) throw new ExitError(2, `--to: ${t.message}`);
      }
      const params = { to: opts.to, dryRun: Boolean(opts.dryRun) };
      // The relay answers after the agent ran: allow the agent's own time limit and a margin.
      const timeoutMs = (ctx.config.agent.timeoutSeconds + 60) * 1000;
      const call = await (deps.callRelay ?? callRelay)(ctx.paths.socket, HEARTBEAT_METHOD, params, timeoutMs);
      let result: HeartbeatMethodResult;
      let direct = false;
      if (call.type === 'ok') result = call.result as HeartbeatMethodResult;
      else if (call.type === 'error')
        throw new ExitError(1, `The relay could not fire a heartbeat: ${call.message}`);
      else if (!deps.directRunner)
        throw new ExitError(
          1,
          `No relay is running (nothing listens on ${ctx.paths.socket}). ` +
            'Start it with `agentwire relay`, then run `agentwire heartbeat` again.',
        );
      else {
        result = await fireDirect(ctx, deps.directRunner, params);
        direct = true;
      }
      const { text, code } = renderOutcome(result, Boolean(opts.dryRun), direct);
      const json = 'chat' in result && result.chat ? { ...result, chat: maskChat(result.chat) } : result;
      // `stored`: a reply made without a relay waits in the outbox for the relay's next start.
      const out = direct && result.type === 'sent' ? { ...json, stored: true } : json;
      process.stdout.write(opts.json ? `${JSON.stringify(out)}\n` : `${text}\n`);
      if (code !== 0) throw new ExitError(code);
    });
}

async function fireDirect(
  ctx: Context,
  build: NonNullable<HeartbeatCliDeps['directRunner']>,
  o: { to?: string; dryRun: boolean },
): Promise<HeartbeatMethodResult> {
  const d = await build(ctx);
  try {
    return await fireHeartbeatOnce(
      {
        runner: d.runner,
        stored: await d.store.jobStates.loadAll(),
        states: d.store.jobStates,
        clock: systemClock,
        log: ctx.log.child({ module: 'heartbeat' }),
        // The same pre-check runner as the relay's (heartbeat.check).
        runCheck: createRunCheck({
          env: checkEnv(ctx.env, ctx.config.agent.env),
          cwd: ctx.config.agent.cwd ?? ctx.paths.workspace,
        }),
      },
      ctx.config.heartbeat,
      d.defaultTarget,
      o,
    );
  } finally {
    await d.close();
  }
}

/**
 * What the command prints, and its exit code: 0 when the heartbeat ran, 1 when it did not. Chat
 * keys are masked as in every other output. `direct`: no relay runs, so a reply went into the
 * store's outbox and leaves when the relay next starts (saying "sent" would not be true).
 */
export function renderOutcome(
  r: HeartbeatMethodResult,
  dryRun: boolean,
  direct = false,
): { text: string; code: number } {
  const chat = 'chat' in r && r.chat ? maskChat(r.chat) : undefined;
  switch (r.type) {
    case 'sent':
      return {
        text: direct
          ? `No relay is running: the reply to ${chat} is stored and goes out when \`agentwire relay\` starts:\n${body(r.text, r.media)}`
          : r.queued
            ? `Queued in the running relay's outbox for ${chat}, not sent yet: ${r.queued.reason}. It goes out once that is fixed:\n${body(r.text, r.media)}`
            : `Sent to ${chat}:\n${body(r.text, r.media)}`,
        code: 0,
      };
    case 'would_send':
      return { text: `Would send to ${chat} (dry run, nothing sent):\n${body(r.text, r.media)}`, code: 0 };
    case 'silent':
      return {
        text: `The agent answered HEARTBEAT_OK in ${chat}: nothing ${dryRun ? 'would be' : 'was'} sent.`,
        code: 0,
      };
    case 'check_quiet':
      return {
        text: `The check command found nothing to do for ${chat}: the agent was not woken, nothing was sent.`,
        code: 0,
      };
    case 'skipped':
      return { text: skipText(r.reason, chat), code: 1 };
    case 'refused':
      return { text: `Not fired: ${r.message}.`, code: 1 };
    case 'failed':
      return {
        text: `The heartbeat in ${chat} failed: ${r.message}${r.reported ? ' (the chat was told)' : ''}`,
        code: 1,
      };
    case 'invalid':
      return { text: `The relay refused the request: ${r.message}`, code: 2 };
  }
}

function body(text: string, media: readonly string[]): string {
  return [text, ...media.map((m) => `[attachment] ${m}`)].filter(Boolean).join('\n');
}

function skipText(
  reason: Extract<HeartbeatMethodResult, { type: 'skipped' }>['reason'],
  chat?: string,
): string {
  switch (reason) {
    case 'busy':
      return `Skipped: ${chat} is busy with another run; try again when it is done.`;
    case 'no_session':
      return `Skipped: there is no agent session in ${chat} yet, and a heartbeat never starts one.`;
    case 'no_target':
      return 'Skipped: no target. Set heartbeat.target, pass --to, or link WhatsApp for the self-chat.';
    case 'in_flight':
      return 'Skipped: a heartbeat is already running.';
    case 'outside_active_hours':
      return 'Skipped: outside heartbeat.activeHours.';
    case 'off':
      return 'Skipped: the heartbeat is off.';
    case 'stopped':
      return `Stopped: the run in ${chat} was stopped before it finished.`;
    case 'moved':
      return `Not sent: another agentwire process took ${chat} over while the heartbeat ran.`;
  }
}

/**
 * One request over the relay's control socket (control/client.ts: the core's protocol, with the
 * hello that says which process calls), its answer as this command reads it.
 */
export async function callRelay(
  socket: string,
  method: string,
  params: unknown,
  timeoutMs: number,
): Promise<RelayCall> {
  const r = await callControl(socket, method, params, { timeoutMs });
  if (r.ok) return { type: 'ok', result: r.result };
  if (r.notRunning) return { type: 'no_relay' };
  return {
    type: 'error',
    message: r.error === 'the relay did not answer in time' ? 'no answer in time' : r.error,
  };
}
