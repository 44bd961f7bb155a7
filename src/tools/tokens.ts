// Per-run tool tokens. The relay mints one when a run starts and hands it to the run's MCP server
// through the CLI's environment; every tool call presents it, and it names the only chat the call
// may act on. Kept in memory only: a relay restart ends every run, so every token with it.
//
// A warm process outlives its runs, so it gets a token of its own (mintProcess), started with it
// once: that token acts only while a turn has bound it to the turn's run (bind), and then acts
// exactly as the run's own token would (same grant: chat, runKey, cwd, counters). Between turns,
// for another lane's run, or after the process closed, it is refused with a sentence saying which.
//
// A token is `<id>.<secret>`: the id finds the grant, the secret is compared in constant time, so
// neither a lookup nor a comparison tells a caller how much of a guess was right.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { ChatKey } from '../core/types.js';
import { forgetCredential, registerCredential } from '../log.js';

export interface ToolGrant {
  chat: ChatKey;
  /** Stable across a redo of the same run after a crash (e.g. `in:42`): outbox keys derive from it. */
  runKey: string;
  /** The agent's working folder: the media policy's default root. */
  cwd: string;
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
  /** Messages and files sent by this run so far. */
  sent: number;
  /** Tool calls that created something keyed by their place in the run (send, schedule). */
  ordinal: number;
}

export type TokenCheck = { ok: true; grant: ToolGrant } | { ok: false; error: string };

/** Beyond the run's own timeout: a tool call just before the kill still gets its answer. */
export const TOKEN_MARGIN_MS = 60_000;

export const TOKEN_REFUSED = 'this tool token is not valid (the run it belonged to has ended)';
export const TOKEN_BETWEEN_TURNS =
  "this agent is between turns: agentwire's tools act only while it is answering a message";
export const TOKEN_PROCESS_CLOSED =
  "this tool token belonged to an agent process that has closed: agentwire's tools no longer act for it";
export const TOKEN_RUN_EXPIRED = 'this tool token is not valid (the run it is bound to ran out of time)';

export type BindResult = { ok: true } | { ok: false; error: string };

/** A warm process's token: bound to one run's grant (by the run token's id) for one turn at a time. */
interface ProcessEntry {
  secret: Buffer;
  lane: string;
  /** The id of the run token whose grant this process acts under, during a turn. */
  bound?: string;
  /** Kept a margin after the process closed, so a late call is told why. */
  closedUntil?: number;
}

export class ToolTokens {
  private readonly grants = new Map<string, { secret: Buffer; grant: ToolGrant }>();
  private readonly processes = new Map<string, ProcessEntry>();
  /**
   * Every live token is a registered credential, so a CLI that prints its environment (or the
   * token) never puts it in a log line or a reply. Forgotten a margin after its run, by the next mint.
   */
  private readonly masked = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A fresh token for one run; `ttlMs` is the run's timeout (the margin is added here). */
  mint(
    g: Pick<ToolGrant, 'chat' | 'runKey' | 'cwd' | 'personWaitMs'> & { interactive?: boolean },
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
    return token;
  }

  /**
   * A token for a warm process in `lane`, minted when the process starts: refused until a turn binds
   * it, and after `closeProcess`. A registered credential while it lives.
   */
  mintProcess(lane: string): string {
    this.sweep();
    const id = randomBytes(9).toString('base64url');
    const secret = randomBytes(32);
    this.processes.set(id, { secret, lane });
    const token = `${id}.${secret.toString('base64url')}`;
    registerCredential(token);
    this.masked.set(token, Number.POSITIVE_INFINITY);
    return token;
  }

  /**
   * For one turn, the process token acts under the run token's grant, which becomes interactive
   * (the live process can wait for the person). Refused for a run of another lane, an ended run, or
   * a closed process.
   */
  bind(processToken: string, runToken: string, lane: string): BindResult {
    const p = this.process(processToken);
    if (!p || p.closedUntil !== undefined) return { ok: false, error: TOKEN_PROCESS_CLOSED };
    if (p.lane !== lane)
      return { ok: false, error: "a warm process's tool token cannot be bound to a run of another chat" };
    const run = this.processes.has(idOf(runToken))
      ? ({ ok: false, error: TOKEN_REFUSED } as const)
      : this.check(runToken);
    if (!run.ok) return run;
    this.release(p);
    p.bound = idOf(runToken);
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
    p.bound = undefined;
  }

  /** The process closed: its token is refused from now on (and forgotten a margin later). */
  closeProcess(processToken: string): void {
    const p = this.process(processToken);
    if (!p || p.closedUntil !== undefined) return;
    this.release(p);
    p.closedUntil = this.now() + TOKEN_MARGIN_MS;
    if (this.masked.has(processToken)) this.masked.set(processToken, p.closedUntil);
  }

  check(token: unknown): TokenCheck {
    if (typeof token !== 'string' || token.length > 200) return { ok: false, error: TOKEN_REFUSED };
    const id = idOf(token);
    const proc = this.processes.get(id);
    const entry = proc ? undefined : this.grants.get(id);
    const given = Buffer.from(token.slice(id.length + 1), 'base64url');
    // Compared even when nothing matched, against a dummy, so a miss costs what a hit costs.
    const secret = proc?.secret ?? entry?.secret ?? DUMMY;
    const same = given.length === secret.length && timingSafeEqual(given, secret);
    if (!same) return { ok: false, error: TOKEN_REFUSED };
    if (proc) {
      if (proc.closedUntil !== undefined) return { ok: false, error: TOKEN_PROCESS_CLOSED };
      const run = proc.bound ? this.grants.get(proc.bound) : undefined;
      if (!run) return { ok: false, error: TOKEN_BETWEEN_TURNS };
      if (expired(run.grant, this.now())) return { ok: false, error: TOKEN_RUN_EXPIRED };
      return { ok: true, grant: run.grant };
    }
    if (!entry) return { ok: false, error: TOKEN_REFUSED };
    if (expired(entry.grant, this.now())) return { ok: false, error: TOKEN_REFUSED };
    return { ok: true, grant: entry.grant };
  }

  private process(token: string): ProcessEntry | undefined {
    const p = this.processes.get(idOf(token));
    if (!p) return undefined;
    const given = Buffer.from(token.slice(idOf(token).length + 1), 'base64url');
    return given.length === p.secret.length && timingSafeEqual(given, p.secret) ? p : undefined;
  }

  /** The run ended: its token is refused from now on. */
  revoke(token: string): void {
    const dot = token.indexOf('.');
    if (dot > 0) this.grants.delete(token.slice(0, dot));
    // Still masked for a while: the run's last output may be logged after it ended.
    if (this.masked.has(token)) this.masked.set(token, this.now() + TOKEN_MARGIN_MS);
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
    const live = new Set<string>();
    for (const [id, e] of this.grants) {
      if (expired(e.grant, now)) this.grants.delete(id);
      else live.add(id);
    }
    for (const [id, p] of this.processes)
      if (p.closedUntil !== undefined && now > p.closedUntil) this.processes.delete(id);
    // A run token stays masked while its grant lives, however long its run waited for a person.
    for (const [token, until] of this.masked)
      if (now > until && !live.has(idOf(token))) {
        this.masked.delete(token);
        forgetCredential(token);
      }
  }
}

const DUMMY = randomBytes(32);

/** Past its run's time, not counting what the run waited for a person. */
function expired(g: ToolGrant, now: number): boolean {
  return now > g.expiresAt + (g.personWaitMs?.() ?? 0);
}

/** The id half of a token (`<id>.<secret>`); empty when there is no dot. */
function idOf(token: string): string {
  const dot = token.indexOf('.');
  return dot > 0 ? token.slice(0, dot) : '';
}
