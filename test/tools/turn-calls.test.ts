// A warm process's call acts only for the turn that made it, while that turn runs (the stamp is
// `agentwire mcp`'s monotonic clock when the CLI handed the call over). One process serves chat A's
// turn (bound at 100, unbound at 200) and then chat B's (bound at 300, still running at 400), as
// with `sessions.scope: 'global'`; each row is a call stamped at some moment, checked at 400.
import { describe, expect, it } from 'vitest';
import {
  TOKEN_BETWEEN_TURNS,
  TOKEN_PROCESS_CLOSED,
  TOKEN_TURN_ENDED,
  ToolTokens,
} from '../../src/tools/tokens.js';

const A = 'twilio:+15550000001' as const;
const B = 'twilio:+15550000002' as const;

function twoTurns() {
  let mono = 0n;
  const t = new ToolTokens(
    () => 0,
    () => mono,
  );
  const proc = t.mintProcess('*');
  const runA = t.mint({ chat: A, runKey: 'in:1', cwd: '/w' }, 60_000);
  mono = 100n;
  t.bind(proc, runA, '*');
  mono = 200n;
  t.unbind(proc, runA);
  const runB = t.mint({ chat: B, runKey: 'in:2', cwd: '/w' }, 60_000);
  mono = 300n;
  t.bind(proc, runB, '*');
  mono = 400n;
  return { t, proc, setMono: (v: bigint) => (mono = v) };
}

type Row = [string, bigint | undefined, { chat: string } | string];
const ROWS: Row[] = [
  ['made in A’s turn, landing in B’s', 150n, TOKEN_TURN_ENDED],
  ['made the moment A’s turn began', 100n, TOKEN_TURN_ENDED],
  ['made before any turn', 50n, TOKEN_BETWEEN_TURNS],
  ['made between the turns', 250n, TOKEN_BETWEEN_TURNS],
  ['made the moment A’s turn ended', 200n, TOKEN_BETWEEN_TURNS],
  ['made in B’s turn', 350n, { chat: B }],
  ['made the moment B’s turn began', 300n, { chat: B }],
  // A stamp from the future is taken as now: it cannot reach a turn that has not begun.
  ['stamped in the future', 10_000n, { chat: B }],
  // No stamp (an older `agentwire mcp`): taken as made now.
  ['not stamped', undefined, { chat: B }],
];

describe('which turn a warm call acts for', () => {
  it.each(ROWS)('%s', (_name, issued, want) => {
    const { t, proc } = twoTurns();
    const c = t.check(proc, issued);
    if (typeof want === 'string') expect(c).toEqual({ ok: false, error: want });
    else expect(c.ok && c.grant.chat).toBe(want.chat);
  });

  it('once B’s turn ended too, a call made in it is refused, and so is one after the process closed', () => {
    const { t, proc, setMono } = twoTurns();
    setMono(500n);
    // Unbinding by a run token that is not the bound one changes nothing.
    t.unbind(proc, 'x.y');
    expect(t.check(proc, 350n).ok).toBe(true);
    t.closeProcess(proc);
    expect(t.check(proc, 350n)).toEqual({ ok: false, error: TOKEN_PROCESS_CLOSED });
  });

  it('a late call is refused even when the next turn binds without an unbind in between', () => {
    let mono = 0n;
    const t = new ToolTokens(
      () => 0,
      () => mono,
    );
    const proc = t.mintProcess('*');
    const runA = t.mint({ chat: A, runKey: 'in:1', cwd: '/w' }, 60_000);
    mono = 100n;
    t.bind(proc, runA, '*');
    const runB = t.mint({ chat: B, runKey: 'in:2', cwd: '/w' }, 60_000);
    mono = 300n;
    t.bind(proc, runB, '*');
    expect(t.check(proc, 150n)).toEqual({ ok: false, error: TOKEN_TURN_ENDED });
    const now = t.check(proc, 310n);
    expect(now.ok && now.grant.chat).toBe(B);
  });
});
