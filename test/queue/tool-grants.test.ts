// Each run is given agentwire's tools for its own chat: the queue asks the grantor once per run,
// with a key that is the same when the run is redone (the last message's id, a schedule's
// occurrence), hands the server to the agent (the retry in a fresh session too) and releases it
// when the run is done. No grantor: the request has no tools at all.
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolServer } from '../../src/agents/types.js';
import type { ToolGrantor } from '../../src/queue/ports.js';
import { saveSession } from '../../src/store/sqlite/sessions.js';
import { FakeAgent, fail, type Harness, harness, ok } from './helpers.js';

let h: Harness;
afterEach(() => h?.cleanup());

function recorder() {
  const events: string[] = [];
  const grantor: ToolGrantor = (run) => {
    const n = events.filter((e) => e.startsWith('grant')).length + 1;
    events.push(`grant ${n} ${run.chat} ${run.runKey} ${run.cwd} ${run.timeoutMs}`);
    const server: ToolServer = {
      command: 'node',
      args: [`token-${n}`],
      env: {},
      tools: ['send_message'],
      callTimeoutMs: 1000,
    };
    const warm = {
      open: () => ({ sessionKey: run.sessionKey, server, close: () => undefined }),
      bind: () => ({ type: 'bound' as const, unbind: () => undefined }),
    };
    return { server, warm, release: () => events.push(`release ${n}`) };
  };
  return { events, grantor };
}

describe('tool grants per run', () => {
  it('a chat run gets the tools of its chat, keyed by its last message, released when it is done', async () => {
    const { events, grantor } = recorder();
    h = harness({ tools: grantor });
    await h.send('hello');
    await h.queue.whenIdle();
    const id = h.store.db.prepare('SELECT MAX(id) AS id FROM inbox').get() as { id: number };
    expect(events).toEqual([`grant 1 console:local in:${id.id} /work/dir 60000`, 'release 1']);
    expect(h.agent.calls[0]?.request.tools?.args).toEqual(['token-1']);
  });

  it('the retry in a fresh session after a stale one is the same run: one grant', async () => {
    const { events, grantor } = recorder();
    const agent = new FakeAgent((_req, n) =>
      n === 1 ? fail('session_not_found', 'gone') : ok('fresh answer'),
    );
    h = harness({ agent, tools: grantor });
    saveSession(h.store.db, 'console:local', 'claude', 'old-session', h.clock.now, true, true);
    await h.send('hello');
    await h.queue.whenIdle();
    expect(agent.calls.map((c) => c.request.tools?.args)).toEqual([['token-1'], ['token-1']]);
    expect(events.filter((e) => e.startsWith('grant'))).toHaveLength(1);
    expect(events.at(-1)).toBe('release 1');
  });

  it('a system run is keyed by its runKey (a schedule occurrence)', async () => {
    const { events, grantor } = recorder();
    h = harness({ tools: grantor });
    const opts = { allowNewSession: true, touchIdle: true, label: 'schedule:x', runKey: 'schedule:x:42' };
    await h.queue.runIfIdle('console:local', 'check', opts);
    expect(events).toEqual(['grant 1 console:local schedule:x:42 /work/dir 60000', 'release 1']);
  });

  it('without a grantor the request carries no tools', async () => {
    h = harness();
    await h.send('hello');
    await h.queue.whenIdle();
    expect(h.agent.calls[0]?.request).not.toHaveProperty('tools');
  });
});
