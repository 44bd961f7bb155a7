// Per-run tool tokens. The relay mints one when a run starts and hands it to the run's MCP server
// through the CLI's environment; every tool call presents it, and it names the only chat the call
// may act on. Kept in memory only: a relay restart ends every run, so every token with it.
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
  /** Messages and files sent by this run so far. */
  sent: number;
  /** Tool calls that created something keyed by their place in the run (send, schedule). */
  ordinal: number;
}

export type TokenCheck = { ok: true; grant: ToolGrant } | { ok: false; error: string };

/** Beyond the run's own timeout: a tool call just before the kill still gets its answer. */
export const TOKEN_MARGIN_MS = 60_000;

export const TOKEN_REFUSED = 'this tool token is not valid (the run it belonged to has ended)';

export class ToolTokens {
  private readonly grants = new Map<string, { secret: Buffer; grant: ToolGrant }>();
  /**
   * Every live token is a registered credential, so a CLI that prints its environment (or the
   * token) never puts it in a log line or a reply. Forgotten a margin after its run, by the next mint.
   */
  private readonly masked = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A fresh token for one run; `ttlMs` is the run's timeout (the margin is added here). */
  mint(g: Pick<ToolGrant, 'chat' | 'runKey' | 'cwd'> & { interactive?: boolean }, ttlMs: number): string {
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

  check(token: unknown): TokenCheck {
    if (typeof token !== 'string' || token.length > 200) return { ok: false, error: TOKEN_REFUSED };
    const dot = token.indexOf('.');
    const entry = dot > 0 ? this.grants.get(token.slice(0, dot)) : undefined;
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    // Compared even when no grant matched, against a dummy, so a miss costs what a hit costs.
    const secret = entry?.secret ?? DUMMY;
    const same = given.length === secret.length && timingSafeEqual(given, secret);
    if (!entry || !same) return { ok: false, error: TOKEN_REFUSED };
    if (this.now() > entry.grant.expiresAt) return { ok: false, error: TOKEN_REFUSED };
    return { ok: true, grant: entry.grant };
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

  private sweep(): void {
    const now = this.now();
    for (const [id, e] of this.grants) if (now > e.grant.expiresAt) this.grants.delete(id);
    for (const [token, until] of this.masked)
      if (now > until) {
        this.masked.delete(token);
        forgetCredential(token);
      }
  }
}

const DUMMY = randomBytes(32);
