// The warm-agent keys: defaults, and the ACP checks naming file, line and key.
import { describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/registry.js';
import { resolveAgent } from '../../src/agents/resolve.js';
import { parseConfigText } from '../../src/config/load.js';
import {
  WARM_MAX_PROCESSES,
  WARM_SESSIONS_PER_PROCESS,
  WARM_START_SECONDS,
  warmMemory,
} from '../../src/config/schema-warm.js';
import { START_LIMIT_MS } from '../../src/drivers/pool-fallback.js';

const parse = (text: string) => parseConfigText(text, 'c.json5', {}, AGENT_KINDS);
const paths = {
  home: '/tmp/aw-warm-test',
  configFile: '/tmp/aw-warm-test/agentwire.json5',
  workspace: '/tmp/aw-warm-test/ws',
  agentState: '/tmp/aw-warm-test/agents',
} as never;

describe('warm config', () => {
  it('defaults: a pool of up to 16 processes within a memory budget, 4 chats a shared process, a 30 s fair wait, 15 idle minutes, a 20 s start limit, every CLI warm', () => {
    const r = parse('{}');
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.config.agents.warm).toEqual({
      maxProcesses: WARM_MAX_PROCESSES,
      sessionsPerProcess: WARM_SESSIONS_PER_PROCESS,
      fairWaitSeconds: 30,
      idleMinutes: 15,
      startSeconds: 20,
    });
    // The config's default is the pool's own.
    expect(WARM_START_SECONDS * 1000).toBe(START_LIMIT_MS);
    expect(WARM_MAX_PROCESSES).toBe(16);
    expect(WARM_SESSIONS_PER_PROCESS).toBe(4);
    for (const kind of ['claude', 'codex', 'pi', 'opencode', 'gemini'] as const)
      expect(resolveAgent(r.config, paths, kind, { createDirs: false }).mode).toBe('warm');
  });

  it('sessionsPerProcess: a whole number from 1 to 64', () => {
    const one = parse('{agents: {warm: {sessionsPerProcess: 1}}}');
    expect(one.ok && one.config.agents.warm.sessionsPerProcess).toBe(1);
    for (const bad of ['0', '2.5', '65', "'4'"]) {
      const r = parse(`{agents: {warm: {sessionsPerProcess: ${bad}}}}`);
      expect(r.ok, bad).toBe(false);
    }
  });

  it('agents.<kind>.mode wins over agent.mode', () => {
    const r = parse("{agent: {mode: 'cold'}, agents: {codex: {mode: 'warm'}}}");
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(resolveAgent(r.config, paths, 'claude', { createDirs: false }).mode).toBe('cold');
    expect(resolveAgent(r.config, paths, 'codex', { createDirs: false }).mode).toBe('warm');
  });

  it('accepts an ACP agent with its command, and whileBusy steer', () => {
    const r = parse("{agent: {kind: 'acp', command: ['my-agent', '--acp']}, queue: {whileBusy: 'steer'}}");
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const a = resolveAgent(r.config, paths, 'acp', { createDirs: false });
    expect(a.command).toEqual(['my-agent', '--acp']);
    expect(a.mode).toBe('warm');
    const other = parse("{agents: {acp: {command: ['x-acp']}}}");
    expect(other.ok).toBe(true);
  });

  it.each([
    ["{\n  agent: {\n    kind: 'acp'\n  }\n}", 'agent.command', 'needs its command'],
    ["{agents: {\n  acp: {model: 'm'}}}", 'agents.acp.command', 'needs its command'],
    ["{agent: {kind: 'acp', command: ['a'],\n  mode: 'cold'}}", 'agent.mode', 'warm only'],
    ["{agents: {acp: {command: ['a'], mode: 'cold'}}}", 'agents.acp.mode', 'warm only'],
    ['{agents: {warm: {maxProcesses: 0}}}', 'agents.warm.maxProcesses', ''],
    ['{agents: {warm: {idle: 3}}}', 'agents.warm.idle', ''],
    ['{agents: {warm: {maxMemoryMb: 10}}}', 'agents.warm.maxMemoryMb', ''],
    ["{agents: {warm: {maxMemoryMb: '2G'}}}", 'agents.warm.maxMemoryMb', ''],
    ['{agents: {warm: {maxProcessMemoryMb: 1.5}}}', 'agents.warm.maxProcessMemoryMb', ''],
    ['{agents: {warm: {fairWaitSeconds: 0}}}', 'agents.warm.fairWaitSeconds', ''],
    ['{agents: {warm: {startSeconds: 0}}}', 'agents.warm.startSeconds', ''],
    ['{agents: {warm: {startSeconds: 601}}}', 'agents.warm.startSeconds', ''],
    ["{agents: {cursor: {mode: 'warm'}}}", 'agents.cursor', ''],
    ["{agent: {mode: 'hot'}}", 'agent.mode', ''],
  ])('refuses %s at %s', (text, path, words) => {
    const r = parse(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const p = r.problems.find((x) => x.path === path);
    expect(p, JSON.stringify(r.problems)).toBeDefined();
    expect(p?.line).toBeGreaterThan(0);
    expect(p?.message).toContain(words);
  });
});

describe('warmMemory: the byte limits the pool runs with', () => {
  const MB = 1024 * 1024;
  const GB = 1024 * MB;
  it.each<[string, { maxMemoryMb?: number; maxProcessMemoryMb?: number }, number, [number, number]]>([
    ['default on 16 GB: a quarter, 2 GB a process', {}, 16 * GB, [4 * GB, 2 * GB]],
    ['default on 4 GB: a quarter; a process may use all of it', {}, 4 * GB, [1 * GB, 1 * GB]],
    ['set budget, default process limit within it', { maxMemoryMb: 1500 }, 16 * GB, [1500 * MB, 1500 * MB]],
    ['both set', { maxMemoryMb: 8000, maxProcessMemoryMb: 700 }, 4 * GB, [8000 * MB, 700 * MB]],
  ])('%s', (_n, w, total, [budget, one]) => {
    expect(warmMemory(w, total)).toEqual({ maxMemoryBytes: budget, maxProcessBytes: one });
  });
});
