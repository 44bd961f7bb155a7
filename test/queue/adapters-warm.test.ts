// The agent resolver routes a warm agent's runs: the chat's session to its session key's live process,
// a heartbeat's own or fresh session cold, an ACP agent's own/fresh runs to a process of their own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentKind, AgentRequest, AgentResult } from '../../src/agents/types.js';
import { configSchema } from '../../src/config/schema.js';
import type { WarmPool } from '../../src/drivers/pool-types.js';
import { createLogger } from '../../src/log.js';
import { agentResolver } from '../../src/queue/adapters.js';
import type { AgentResolution } from '../../src/queue/ports.js';

const dir = mkdtempSync(join(tmpdir(), 'aw-adapt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const paths = {
  home: dir,
  configFile: join(dir, 'c.json5'),
  workspace: join(dir, 'ws'),
  agentState: join(dir, 'st'),
} as never;
const log = createLogger({ level: 'silent' });

function spy() {
  const calls: string[] = [];
  const warm: Pick<WarmPool, 'run' | 'close'> = {
    run: async (key: string, kind: AgentKind, _r: AgentRequest): Promise<AgentResult> => {
      calls.push(`run ${kind} ${key}`);
      return { type: 'ok', text: 'warm', progress: [], media: [], truncated: false, durationMs: 0 };
    },
    close: async (key) => {
      calls.push(`close ${key}`);
    },
  };
  return { calls, warm };
}

const agentOf = (r: AgentResolution) => {
  if (!r.ok) throw new Error(r.error);
  return r.agent;
};

describe('agentResolver with a warm pool', () => {
  const request = (a: ReturnType<typeof agentOf>): AgentRequest => ({
    ...a.base,
    // Not on PATH: a cold run ends at once as not_installed, which proves it ran cold.
    command: ['aw-no-such-cli-xyz'],
    prompt: 'hi',
    session: { type: 'new' },
  });

  it('warm (the default): the chat session goes to its session key; own and fresh sessions run cold', async () => {
    const { calls, warm } = spy();
    const config = configSchema.parse({ agent: { kind: 'codex' } });
    const a = agentOf(agentResolver(config, paths, {}, log, warm)('codex'));
    expect(await a.run(request(a), { sessionKey: 'console:me', session: 'chat' })).toMatchObject({
      text: 'warm',
    });
    expect(await a.run(request(a), { sessionKey: 'own:hb', session: 'own' })).toMatchObject({
      kind: 'not_installed',
    });
    expect(await a.run(request(a), { sessionKey: 'console:me', session: 'fresh' })).toMatchObject({
      kind: 'not_installed',
    });
    expect(calls).toEqual(['run codex console:me']);
  });

  it('mode cold never touches the pool', async () => {
    const { calls, warm } = spy();
    const config = configSchema.parse({ agent: { kind: 'claude' }, agents: { pi: { mode: 'cold' } } });
    const a = agentOf(agentResolver(config, paths, {}, log, warm)('pi'));
    expect(await a.run(request(a), { sessionKey: 'console:me', session: 'chat' })).toMatchObject({
      kind: 'not_installed',
    });
    expect(calls).toEqual([]);
  });

  it('an ACP agent has no cold mode: an own/fresh run gets a process of its own, closed after', async () => {
    const { calls, warm } = spy();
    const config = configSchema.parse({ agent: { kind: 'acp', command: ['my-acp'] } });
    const a = agentOf(agentResolver(config, paths, {}, log, warm)('acp'));
    await a.run(request(a), { sessionKey: 'own:hb', session: 'own' });
    await a.run(request(a), { sessionKey: 'console:me', session: 'chat' });
    expect(calls).toEqual(['run acp own:own:hb', 'close own:own:hb', 'run acp console:me']);
  });
});
