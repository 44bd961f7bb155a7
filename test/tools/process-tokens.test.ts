// A warm process's tool token: minted when the process starts, it acts only while a
// turn has bound it to that turn's run, and then exactly as the run's own token (same grant, so
// the same chat, outbox keys and counters, fresh each run). Between turns, for a run of another session key,
// after its run expired or after the process closed, it is refused with a sentence saying which.
import { describe, expect, it } from 'vitest';
import { maskCredentials } from '../../src/log.js';
import {
  TOKEN_BETWEEN_TURNS,
  TOKEN_INVALID,
  TOKEN_MARGIN_MS,
  TOKEN_PROCESS_CLOSED,
  TOKEN_REFUSED,
  TOKEN_RUN_EXPIRED,
  ToolTokens,
} from '../../src/tools/tokens.js';

const A = 'twilio:+15550000001' as const;
const B = 'twilio:+15550000002' as const;
const run = (chat: typeof A | typeof B, runKey: string) => ({ chat, runKey, cwd: '/w' });

describe('a warm process token', () => {
  it('is refused until a turn binds it, acts under the bound run, and is refused again after the turn', () => {
    const t = new ToolTokens(() => 0);
    const proc = t.mintProcess(A);
    expect(t.check(proc)).toEqual({ ok: false, error: TOKEN_BETWEEN_TURNS });

    const first = t.mint(run(A, 'in:1'), 60_000);
    expect(t.bind(proc, first, A)).toEqual({ ok: true });
    const bound = t.check(proc);
    expect(bound.ok && bound.grant).toMatchObject({ chat: A, runKey: 'in:1', interactive: true });
    // The very grant of the run: a send through the process counts against that run.
    const own = t.check(first);
    expect(own.ok && bound.ok && own.grant === bound.grant).toBe(true);
    if (bound.ok) bound.grant.sent = 3;

    t.unbind(proc, first);
    expect(t.check(proc)).toEqual({ ok: false, error: TOKEN_BETWEEN_TURNS });
    // Unbound, the run's grant is no longer a live process's: no waiting for the person.
    const after = t.check(first);
    expect(after.ok && after.grant.interactive).toBe(false);

    // The next turn's run: its own chat, its own key, counters from zero.
    const second = t.mint(run(A, 'in:2'), 60_000);
    expect(t.bind(proc, second, A)).toEqual({ ok: true });
    const next = t.check(proc);
    expect(next.ok && next.grant).toMatchObject({ runKey: 'in:2', sent: 0, ordinal: 0, interactive: true });
  });

  it('is refused once its run ended (revoked) even if the turn was never unbound', () => {
    const t = new ToolTokens(() => 0);
    const proc = t.mintProcess(A);
    const r = t.mint(run(A, 'in:1'), 60_000);
    t.bind(proc, r, A);
    t.revoke(r);
    expect(t.check(proc)).toEqual({ ok: false, error: TOKEN_BETWEEN_TURNS });
  });

  it('cannot be bound to a run of another session key, and another key’s token does not act for this run', () => {
    const t = new ToolTokens(() => 0);
    const procA = t.mintProcess(A);
    const procB = t.mintProcess(B);
    const runA = t.mint(run(A, 'in:1'), 60_000);
    const bindB = t.bind(procB, runA, A);
    expect(bindB.ok).toBe(false);
    expect(!bindB.ok && bindB.error).toMatch(/another chat/);
    expect(t.bind(procA, runA, A)).toEqual({ ok: true });
    // B's process stays unbound while A's turn runs: its token acts for nobody.
    expect(t.check(procB)).toEqual({ ok: false, error: TOKEN_BETWEEN_TURNS });
    // With sessions.scope 'global' one session key serves several chats: each turn binds its own chat.
    const g = t.mintProcess('*');
    const runB = t.mint(run(B, 'in:7'), 60_000);
    expect(t.bind(g, runB, '*')).toEqual({ ok: true });
    const c = t.check(g);
    expect(c.ok && c.grant.chat).toBe(B);
  });

  it('is refused after its bound run expired', () => {
    let now = 0;
    const t = new ToolTokens(() => now);
    const proc = t.mintProcess(A);
    const r = t.mint(run(A, 'in:1'), 1000);
    t.bind(proc, r, A);
    now = 1000 + TOKEN_MARGIN_MS + 1;
    expect(t.check(proc)).toEqual({ ok: false, error: TOKEN_RUN_EXPIRED });
    // An expired run cannot be bound either.
    const p2 = t.mintProcess(A);
    expect(t.bind(p2, r, A)).toEqual({ ok: false, error: TOKEN_REFUSED });
  });

  it('is refused after the process closed, even mid-turn, and cannot be bound again', () => {
    let now = 0;
    const t = new ToolTokens(() => now);
    const proc = t.mintProcess(A);
    const r = t.mint(run(A, 'in:1'), 60_000);
    t.bind(proc, r, A);
    t.closeProcess(proc);
    expect(t.check(proc)).toEqual({ ok: false, error: TOKEN_PROCESS_CLOSED });
    expect(t.bind(proc, r, A)).toEqual({ ok: false, error: TOKEN_PROCESS_CLOSED });
    const still = t.check(r);
    expect(still.ok && still.grant.interactive).toBe(false);
    expect(t.processCount).toBe(0);
    // Long after, the closed token is forgotten: plainly not valid.
    now = 2 * TOKEN_MARGIN_MS;
    t.mint(run(A, 'in:2'), 60_000); // sweeps
    expect(t.check(proc)).toEqual({ ok: false, error: TOKEN_INVALID });
  });

  it('refuses a forged secret, and a process token where a run token is expected', () => {
    const t = new ToolTokens(() => 0);
    const proc = t.mintProcess(A);
    const r = t.mint(run(A, 'in:1'), 60_000);
    t.bind(proc, r, A);
    const forged = `${proc.split('.')[0]}.${r.split('.')[1]}`;
    expect(t.check(forged)).toEqual({ ok: false, error: TOKEN_INVALID });
    expect(t.bind(forged, r, A)).toEqual({ ok: false, error: TOKEN_PROCESS_CLOSED });
    const other = t.mintProcess(A);
    expect(t.bind(other, proc, A)).toEqual({ ok: false, error: TOKEN_INVALID });
  });

  it('is a masked credential while the process lives, and for a margin after it closed', () => {
    let now = 0;
    const t = new ToolTokens(() => now);
    const proc = t.mintProcess(A);
    expect(maskCredentials(`env: ${proc}`)).not.toContain(proc);
    now = 10 * TOKEN_MARGIN_MS; // no expiry while the process lives, however long
    t.mint(run(A, 'in:1'), 60_000);
    expect(maskCredentials(proc)).not.toContain(proc);
    t.closeProcess(proc);
    expect(maskCredentials(proc)).not.toContain(proc);
    now += TOKEN_MARGIN_MS + 1;
    t.mint(run(A, 'in:2'), 60_000);
    expect(maskCredentials(proc)).toContain(proc);
  });
});
