// The pool binds a warm process's tool token to each turn's run (the process outlives every run,
// so its token must never act for one that ended): during the turn a call with the process's
// token acts for that run (its chat, its runKey, its counters, interactive); the
// next turn's run starts from zero; between turns and after the process closed it is refused. A
// stub driver (the pool's `build` seam) looks at the token mid-turn, as `agentwire mcp` would.
import { describe, expect, it } from 'vitest';
import type { AgentRequest, AgentResult, ToolServer } from '../../src/agents/types.js';
import { createWarmPool } from '../../src/drivers/pool.js';
import type { SessionDriver } from '../../src/drivers/types.js';
import { createLogger } from '../../src/log.js';
import { toolGrantor } from '../../src/tools/grants.js';
import {
  TOKEN_BETWEEN_TURNS,
  TOKEN_PROCESS_CLOSED,
  type TokenCheck,
  ToolTokens,
} from '../../src/tools/tokens.js';

const A = 'twilio:+15550000001';
const B = 'twilio:+15550000002';

function rig() {
  const tokens = new ToolTokens();
  const grantor = toolGrantor({ tokens, socket: '/s', command: 'node', args: ['bin.js'] });
  const seen: { server?: ToolServer; midTurn: TokenCheck[]; started: number } = { midTurn: [], started: 0 };
  const driver = (server: ToolServer | undefined): SessionDriver => {
    let state: ReturnType<SessionDriver['state']> = { type: 'idle' };
    seen.started++;
    seen.server = server;
    return {
      open: async () => {
        state = { type: 'idle', sessionId: 's1' };
        return { type: 'ok', sessionId: 's1' };
      },
      turn: async (): Promise<AgentResult> => {
        const c = tokens.check(server?.env.AGENTWIRE_TOOLS_TOKEN);
        // What a send_message does to the grant: counted against the run.
        if (c.ok) c.grant.sent++;
        seen.midTurn.push(c.ok ? { ok: true, grant: { ...c.grant } } : c);
        return {
          type: 'ok',
          text: 'ok',
          progress: [],
          media: [],
          truncated: false,
          durationMs: 1,
          sessionId: 's1',
        };
      },
      steer: () => ({ type: 'idle' }),
      cancel: async () => undefined,
      close: async () => {
        state = { type: 'closed' };
      },
      state: () => state,
      pid: () => undefined,
    };
  };
  const pool = createWarmPool({
    maxProcesses: 2,
    idleMs: 60_000,
    log: createLogger({ level: 'silent' }),
    cold: () => undefined,
    build: (_kind, s) => ({ type: 'driver', driver: driver(s.tools) }),
  });
  const req = (chat: string, sessionKey: string, runKey: string, first: boolean): AgentRequest => {
    const g = grantor({ chat: chat as typeof A, sessionKey, runKey, cwd: '/w', timeoutMs: 30_000 });
    if (!g) throw new Error('no grant');
    return {
      prompt: 'hi',
      session: first ? { type: 'new' } : { type: 'resume', id: 's1' },
      command: ['x'],
      cwd: '/w',
      stateDir: '/state',
      env: {},
      timeoutMs: 30_000,
      tools: g.server,
      warmTools: g.warm,
    };
  };
  return { tokens, pool, seen, req };
}

describe('the pool binds the process token per turn', () => {
  it('acts for each turn’s run (interactive, counters fresh), refused between turns and after close', async () => {
    const { tokens, pool, seen, req } = rig();
    await pool.run(A, 'claude', req(A, A, 'in:1', true));
    await pool.run(A, 'claude', req(A, A, 'in:2', false));
    expect(seen.started).toBe(1);
    expect(
      seen.midTurn.map((c) => c.ok && [c.grant.chat, c.grant.runKey, c.grant.sent, c.grant.interactive]),
    ).toEqual([
      [A, 'in:1', 1, true],
      [A, 'in:2', 1, true],
    ]);
    const token = seen.server?.env.AGENTWIRE_TOOLS_TOKEN;
    expect(tokens.check(token)).toEqual({ ok: false, error: TOKEN_BETWEEN_TURNS });
    await pool.shutdown(1000);
    expect(tokens.check(token)).toEqual({ ok: false, error: TOKEN_PROCESS_CLOSED });
  });

  it('one global session serving two chats: each turn acts for its own chat', async () => {
    const { pool, seen, req } = rig();
    await pool.run('*', 'claude', req(A, '*', 'in:1', true));
    await pool.run('*', 'claude', req(B, '*', 'in:2', false));
    expect(seen.started).toBe(1);
    expect(seen.midTurn.map((c) => c.ok && c.grant.chat)).toEqual([A, B]);
    await pool.shutdown(1000);
  });

  it('a run of another session key cannot bind the process: its turn runs with the tools refused', async () => {
    const { pool, seen, req } = rig();
    // The run says session key B, the pool's is A (a bug elsewhere): the token is not bound to it.
    await pool.run(A, 'claude', req(B, B, 'in:1', true));
    expect(seen.midTurn).toEqual([{ ok: false, error: TOKEN_BETWEEN_TURNS }]);
    await pool.shutdown(1000);
  });
});
