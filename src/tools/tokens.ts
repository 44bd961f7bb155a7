// Per-run tool tokens. The relay mints one when a run starts and hands it to the run's MCP server
// through the CLI's environment; every tool call presents it, and it names the only chat the call
// may act on. Kept in memory only: a relay restart ends every run, so every token with it.
//
// A warm process outlives its runs, so it gets a token of its own (mintProcess), started with it
// once: that token acts only while a turn has bound it to the turn's run (bind), and then acts
// exactly as the run's own token would (same grant: chat, runKey, cwd, counters). Between turns,
// for a run of another session key, or after the process closed, it is refused with a sentence saying which.
//
// A call belongs to the turn that made it, not to whichever turn is bound when it lands: with
// `sessions.scope: 'global'` one process serves every chat, and a call of A's turn still in flight
// when that turn ends would otherwise act for B's turn, bound by then, and send A's text to B. The
// token cannot say which turn (it is the process's, fixed when the process started), so each call
// carries when it was made: `agentwire mcp` (and pi's extension) stamp it with the system's
// monotonic clock (process.hrtime, the same clock in every process on the machine) the moment the
// CLI hands it over, before it travels to the relay. The relay keeps each process's recent turns
// (bound from, unbound at, by the same clock) and lets a call act only for the turn in which it was
// made, while that turn runs; one made in a turn that has ended is refused. What this cannot see: a
// call the CLI wrote during A's turn that our server reads only after B's turn began (a CPU-starved
// server, for longer than a turn's hand-over takes); the stamp would then place it in B's turn.
//
// A token is `<id>.<secret>`: the id finds the grant, the secret is compared in constant time, so
// neither a lookup nor a comparison tells a caller how much of a guess was right.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Approver, PermissionPolicy } from '../agents/types.js';
import type { ChatKey } from '../core/types.js';
import { forgetCredential, registerCredential } from '../log.js';
import type { Fence } from '../store/ownership.js';

export interface ToolGrant {
  chat: ChatKey;
  /** Stable across a redo of the same run after a crash (e.g. `in:42`): outbox keys derive from it. */
  runKey: string;
  /** The agent's working folder: the media policy's default root. */
  cwd: string;
  /** The run's agent id (a name from agents.list, or a kind): who send_to_agent speaks for. */
  agent?: string;
  /** Who asked, when a person did (the least trusted sender of the run); unset: a system run. */
  role?: 'owner' | 'member' | 'guest';
  /** Epoch ms after which the token is refused (the run's timeout plus a margin). */
  expiresAt: number;
  /**
   * True when the run is a turn of a live (warm) process, which can wait for the person: only then
   * may `ask_user` ask. A cold run's process cannot be kept waiting on a phone.
   */
  interactive: boolean;
  /**
   * How long the run has waited for a person so far (queue/interactions.ts): a warm turn's timeout
   * does not count that time (drivers/turn-timer.ts), so neither does the grant's expiry.
   */
  personWaitMs?: () => number;
  /**
   * The run's permission policy and Approver: whether a call of one of the user's own tools that is
   * not marked safe runs, asks the chat first, or is refused (user-policy.ts). Unset: deny.
   */
  permissions?: PermissionPolicy;
  approve?: Approver;
  /**
   * The chat's lease the run holds, when processes share the store: every write a tool makes for the
   * run carries it, and is refused once the lease moved (a run of a paused process cannot send).
   */
  fence?: Fence;
  /** Messages and files sent by this run so far. */
  sent: number;
  /** Tool calls that created something keyed by their place in the run (send, schedule). */
  ordinal: number;
}

export type TokenCheck = { ok: true; grant: ToolGrant } | { ok: false; error: string };

/** Beyond the run's own timeout: a tool call just before the kill still gets its answer. */
export const TOKEN_MARGIN_MS = 60_000;

/** A token that never was one of ours (or whose secret is wrong): nothing more is said. */
export const TOKEN_INVALID = 'this tool token is not valid';
/** A run token whose run ended (or ran out of time), told for a margin after the run. */
export const TOKEN_REFUSED = 'this tool token is not valid (the run it belonged to has ended)';
export const TOKEN_TURN_ENDED =
  "this tool call was made during a turn that has ended, so it no longer acts: agentwire's tools act only for the turn that made the call";
export const TOKEN_BETWEEN_TURNS =
  "this agent is between turns: agentwire's tools act only while it is answering a message";
export const TOKEN_PROCESS_CLOSED =
  "this tool token belonged to an agent process that has closed: agentwire's tools no longer act for it";
export const TOKEN_RUN_EXPIRED = 'this tool token is not valid (the run it is bound to ran out of time)';

export type BindResult = { ok: true } | { ok: false; error: string };

/** One turn of a warm process, on the monotonic clock: a call made in it acts only while it runs. */
interface Turn {
  from: bigint;
  to?: bigint;
}

/** A warm process's token: bound to one run's grant (by the run token's id) for one turn at a time. */
interface ProcessEntry {
  secret: Buffer;
  /** The session scope the process serves (a chat key, or `*`). */
  sessionKey: string;
  /** The id of the run token whose grant this process acts under, during a turn. */
  bound?: string;
  /** Its latest turns, oldest first (a few: a late call is late by moments, not by turns). */
  turns: Turn[];
  /** Kept a margin after the process closed, so a late call is told why. */
  closedUntil?: number;
}

export class ToolTokens {
  private readonly grants = new Map<string, { secret: Buffer; grant: ToolGrant }>();
  private readonly processes = new Map<string, ProcessEntry>();
  /** Ended runs' secrets, kept a margin so a late call hears that its run ended (not "not valid"). */
  private readonly ended = new Map<string, { secret: Buffer; until: number }>();
  /**
   * Every live token is a registered credential, so a CLI that prints its environment (or the
   * token) never puts it in a log line or a reply. Forgotten a margin after its run, by the next mint.
   */
  private readonly masked = new Map<string, number>();
  /**
   * No entry of any map above can be due for removal before this time (epoch ms), so a mint skips
   * the sweep until then. Tokens stay masked for a margin after their run, so at a steady message
   * rate hundreds are kept; walking all of them at every mint was agentwire's own largest allocation
   * per message after the spawn's (docs/performance.md). Every time set below lowers it; a sweep
   * recomputes it.
   */
  private sweepDue = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly now: () => number = Date.now,
    /** The clock calls are stamped with (tool-call.ts): the system's monotonic clock, in ns. */
    private readonly mono: () => bigint = process.hrtime.bigint,
  ) {}

  /** A fresh token for one run; `ttlMs` is the run's timeout (the margin is added here). */
  mint(
    g: Pick<
      ToolGrant,
      'chat' | 'runKey' | 'cwd' | 'personWaitMs' | 'agent' | 'role' | 'permissions' | 'approve' | 'fence'
    > & {
      interactive?: boolean;
    },
    ttlMs: number,
  ): string {
    this.sweep();
    const id = randomBytes(9).toString('base64url');
    const secret = randomBytes(32);
    const expiresAt = this.now() + ttlMs + TOKEN_MARGIN_MS;
    this.grants.set(id, {
      secret,
      grant: { ...g, interactive: g.interactive ?? false, expiresAt, sent: 0, ordinal: 0 },
    });
    const token = `${id}.${secret.toString('base64url')}`;
    registerCredential(token);
    this.masked.set(token, expiresAt);
    this.due(expiresAt);
    return token;
  }

  /**
   * A token for a warm process of `sessionKey`, minted when the process starts: refused until a turn binds
   * it, and after `closeProcess`. A registered credential while it lives.
   */
  mintProcess(sessionKey: string): string {
    this.sweep();
    const id = randomBytes(9).toString('base64url');
    const secret = randomBytes(32);
    this.processes.set(id, { secret, sessionKey, turns: [] });
    const token = `${id}.${secret.toString('base64url')}`;
    registerCredential(token);
    this.masked.set(token, Number.POSITIVE_INFINITY);
    return token;
  }

  /**
   * For one turn, the process token acts under the run token's grant, which becomes interactive
   * (the live process can wait for the person). Refused for a run of another session key, an ended run, or
   * a closed process.
   */
  bind(processToken: string, runToken: string, sessionKey: string): BindResult {
    const p = this.process(processToken);
    if (!p || p.closedUntil !== undefined) return { ok: false, error: TOKEN_PROCESS_CLOSED };
    if (p.sessionKey !== sessionKey)
      return { ok: false, error: "a warm process's tool token cannot be bound to a run of another chat" };
    const run = this.processes.has(idOf(runToken))
      ? ({ ok: false, error: TOKEN_INVALID } as const)
      : this.check(runToken);
    if (!run.ok) return run;
    this.release(p);
    p.bound = idOf(runToken);
    p.turns.push({ from: this.mono() });
    if (p.turns.length > MAX_TURNS) p.turns.shift();
    run.grant.interactive = true;
    return { ok: true };
  }

  /** The turn ended: the process token is refused until the next turn binds it. */
  unbind(processToken: string, runToken: string): void {
    const p = this.process(processToken);
    const runId = idOf(runToken);
    if (p?.bound === runId) this.release(p);
  }

  /** Unbinds: the run's grant is no longer a live process's, so no longer interactive. */
  private release(p: ProcessEntry): void {
    const run = p.bound ? this.grants.get(p.bound) : undefined;
    if (run) run.grant.interactive = false;
    const turn = p.turns.at(-1);
    if (p.bound !== undefined && turn && turn.to === undefined) turn.to = this.mono();
    p.bound = undefined;
  }

  /** The process closed: its token is refused from now on (and forgotten a margin later). */
  closeProcess(processToken: string): void {
    const p = this.process(processToken);
    if (!p || p.closedUntil !== undefined) return;
    this.release(p);
    p.closedUntil = this.now() + TOKEN_MARGIN_MS;
    if (this.masked.has(processToken)) this.masked.set(processToken, p.closedUntil);
    this.due(p.closedUntil);
  }

  /**
   * `issued`: when the call was made (the monotonic stamp `agentwire mcp` puts on it). A warm
   * process's call acts only for the turn it was made in, and only while that turn runs; without a
   * stamp it is taken as made now.
   */
  check(token: unknown, issued?: bigint): TokenCheck {
    if (typeof token !== 'string' || token.length > 200) return { ok: false, error: TOKEN_INVALID };
    const id = idOf(token);
    const proc = this.processes.get(id);
    const entry = proc ? undefined : this.grants.get(id);
    const gone = proc || entry ? undefined : this.ended.get(id);
    const given = Buffer.from(token.slice(id.length + 1), 'base64url');
    // Compared even when nothing matched, against a dummy, so a miss costs what a hit costs.
    const secret = proc?.secret ?? entry?.secret ?? gone?.secret ?? DUMMY;
    const same = given.length === secret.length && timingSafeEqual(given, secret);
    if (!same) return { ok: false, error: TOKEN_INVALID };
    if (proc) {
      if (proc.closedUntil !== undefined) return { ok: false, error: TOKEN_PROCESS_CLOSED };
      const made = turnOf(proc.turns, issued === undefined ? undefined : min(issued, this.mono()));
      if (made && made.to !== undefined) return { ok: false, error: TOKEN_TURN_ENDED };
      const run = proc.bound && made ? this.grants.get(proc.bound) : undefined;
      if (!run) return { ok: false, error: TOKEN_BETWEEN_TURNS };
      if (expired(run.grant, this.now())) return { ok: false, error: TOKEN_RUN_EXPIRED };
      return { ok: true, grant: run.grant };
    }
    if (!entry || expired(entry.grant, this.now())) return { ok: false, error: TOKEN_REFUSED };
    return { ok: true, grant: entry.grant };
  }

  /**
   * Whether `token` is a live run's, or a warm process's that has not closed (bound to a turn or
   * not): enough to be told which tools there are, which a CLI asks once, at its start.
   */
  known(token: unknown): boolean {
    if (typeof token !== 'string' || token.length > 200) return false;
    const id = idOf(token);
    const proc = this.processes.get(id);
    const entry = proc ? undefined : this.grants.get(id);
    const given = Buffer.from(token.slice(id.length + 1), 'base64url');
    const secret = proc?.secret ?? entry?.secret ?? DUMMY;
    if (!(given.length === secret.length && timingSafeEqual(given, secret))) return false;
    if (proc) return proc.closedUntil === undefined;
    return entry !== undefined && !expired(entry.grant, this.now());
  }

  private process(token: string): ProcessEntry | undefined {
    const p = this.processes.get(idOf(token));
    if (!p) return undefined;
    const given = Buffer.from(token.slice(idOf(token).length + 1), 'base64url');
    return given.length === p.secret.length && timingSafeEqual(given, p.secret) ? p : undefined;
  }

  /** The run ended: its token is refused from now on. */
  revoke(token: string): void {
    const id = idOf(token);
    const e = this.grants.get(id);
    if (e) this.ended.set(id, { secret: e.secret, until: this.now() + TOKEN_MARGIN_MS });
    this.grants.delete(id);
    // Still masked for a while: the run's last output may be logged after it ended.
    if (this.masked.has(token)) this.masked.set(token, this.now() + TOKEN_MARGIN_MS);
    this.due(this.now() + TOKEN_MARGIN_MS);
  }

  /** Something may be removed once the clock passes `at`. */
  private due(at: number): void {
    if (at < this.sweepDue) this.sweepDue = at;
  }

  get size(): number {
    return this.grants.size;
  }

  /** Live warm processes' tokens (not yet closed). */
  get processCount(): number {
    let n = 0;
    for (const p of this.processes.values()) if (p.closedUntil === undefined) n++;
    return n;
  }

  private sweep(): void {
    const now = this.now();
    // Nothing expires before sweepDue (each time is `now > t`, and a grant's expiry only moves later
    // while its run waits for a person), so skipping until then removes nothing late.
    if (!(now > this.sweepDue)) return;
    let next = Number.POSITIVE_INFINITY;
    const live = new Set<string>();
    for (const [id, e] of this.grants) {
      if (expired(e.grant, now)) {
        this.grants.delete(id);
        this.ended.set(id, { secret: e.secret, until: now + TOKEN_MARGIN_MS });
        next = Math.min(next, now + TOKEN_MARGIN_MS);
      } else {
        live.add(id);
        next = Math.min(next, e.grant.expiresAt + (e.grant.personWaitMs?.() ?? 0));
      }
    }
    for (const [id, e] of this.ended)
      if (now > e.until) this.ended.delete(id);
      else next = Math.min(next, e.until);
    for (const [id, p] of this.processes)
      if (p.closedUntil !== undefined && now > p.closedUntil) this.processes.delete(id);
      else if (p.closedUntil !== undefined) next = Math.min(next, p.closedUntil);
    // A run token stays masked while its grant lives, however long its run waited for a person.
    for (const [token, until] of this.masked)
      if (now > until && !live.has(idOf(token))) {
        this.masked.delete(token);
        forgetCredential(token);
      } else if (until >= now) next = Math.min(next, until);
    // A masked token past its time but kept for a live grant is due with that grant (counted above).
    this.sweepDue = next;
  }
}

const DUMMY = randomBytes(32);
const MAX_TURNS = 8;

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * The turn a call made at `at` belongs to: the latest that began at or before it, unless that one
 * had ended by then (made between turns: none). Without `at`: the current turn, if one runs.
 */
function turnOf(turns: readonly Turn[], at: bigint | undefined): Turn | undefined {
  if (at === undefined) {
    const last = turns.at(-1);
    return last && last.to === undefined ? last : undefined;
  }
  for (let i = turns.length - 1; i >= 0; i--) {
    const t = turns[i] as Turn;
    if (t.from <= at) return t.to === undefined || at < t.to ? t : undefined;
  }
  return undefined;
}

/** Past its run's time, not counting what the run waited for a person. */
function expired(g: ToolGrant, now: number): boolean {
  return now > g.expiresAt + (g.personWaitMs?.() ?? 0);
}

/** The id half of a token (`<id>.<secret>`); empty when there is no dot. */
function idOf(token: string): string {
  const dot = token.indexOf('.');
  return dot > 0 ? token.slice(0, dot) : '';
}
