// Permission policy `ask` against the real CLIs (pinned, offline, fake model): each warm driver is
// built by the factory exactly as the relay builds it (claude's prompt tool, codex's approval
// policy, gemini's approval mode, opencode's inline rules, pi with its own permission-gate
// extension), the fake model makes the CLI call its shell tool to create a file, and a stub
// Approver answers. Allow: the question was asked and the file exists. Deny: it was asked, the file
// does not exist, and the turn still ends with the model's reply.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { AgentKind, ApprovalAnswer, ApprovalQuestion, Approver } from '../../src/agents/types.js';
import { buildDriver } from '../../src/drivers/factory.js';
import { scenario, stateDir, turn, waitNoLeftovers } from './harness.js';

const PI_PKG = '@mariozechner/pi-coding-agent';
const FILE = 'made-by-tool';

interface Cli {
  kind: AgentKind;
  /** The model's call to the CLI's own shell tool (names as the captures show). */
  tool: (command: string) => { name: string; input: Record<string, unknown> };
  /** Extra argv after the program (pi: the extension that asks). */
  extra?: () => string[];
  /** pi's gate asks about `rm -rf` only. */
  command: string;
  kindAsked: RegExp;
}

const CLIS: Cli[] = [
  {
    kind: 'claude',
    tool: (command) => ({ name: 'Bash', input: { command, description: 'Run the scripted tool command' } }),
    command: `touch ${FILE}`,
    kindAsked: /^shell$/,
  },
  {
    kind: 'codex',
    tool: (cmd) => ({ name: 'exec_command', input: { cmd } }),
    command: `touch ${FILE}`,
    kindAsked: /^shell$/,
  },
  {
    kind: 'gemini',
    tool: (command) => ({
      name: 'run_shell_command',
      input: { command, description: 'Run the scripted tool command' },
    }),
    command: `touch ${FILE}`,
    kindAsked: /^shell$/,
  },
  {
    kind: 'opencode',
    tool: (command) => ({ name: 'bash', input: { command, description: 'Run the scripted tool command' } }),
    command: `touch ${FILE}`,
    kindAsked: /^shell$/,
  },
  {
    kind: 'pi',
    tool: (command) => ({ name: 'bash', input: { command } }),
    extra: () => [
      '-e',
      join(inject('clisDir'), 'pi', 'node_modules', PI_PKG, 'examples', 'extensions', 'permission-gate.ts'),
    ],
    command: `touch ${FILE} && rm -rf no-such-dir`,
    kindAsked: /^pi:/,
  },
];

function build(cli: Cli, state: string, base: string) {
  const { request, marker } = turn(cli.kind, state, base, '', { type: 'new' }, 90_000);
  const built = buildDriver(cli.kind, {
    ...request,
    command: [...request.command, ...(cli.extra?.() ?? [])],
    env: { ...request.env, PATH: `${inject('clisDir')}/bin:${process.env.PATH}` },
    permissions: 'ask',
  });
  if (built.type !== 'driver') throw new Error(`no warm driver: ${built.reason}`);
  return { d: built.driver, marker };
}

describe.each(CLIS)('permission policy ask with the real $kind', (cli) => {
  it('a stop while the person has not answered ends the turn, writes nothing, and keeps the process', async () => {
    const id = `ask-${cli.kind}-stop`;
    const base = await scenario(id, { mode: 'tool', reply: 'After the tool.', tool: cli.tool(cli.command) });
    const state = stateDir(cli.kind);
    const { d, marker } = build(cli, state, base);
    let seen: AbortSignal | undefined;
    const approve: Approver = (_q, signal) => {
      seen = signal;
      return new Promise(() => {});
    };
    try {
      const o = await d.open({ type: 'new' });
      if (o.type !== 'ok') throw new Error(`open: ${o.message} ${o.detail ?? ''}`);
      const pid = d.pid();
      const stop = new AbortController();
      const running = d.turn({ prompt: 'run the tool', timeoutMs: 90_000, signal: stop.signal, approve });
      const until = Date.now() + 60_000;
      while (!seen && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(seen, 'the CLI asked').toBeDefined();
      stop.abort();
      expect(await running).toMatchObject({ type: 'error', kind: 'aborted' });
      expect(seen?.aborted).toBe(true);
      expect(existsSync(join(state, 'work', FILE))).toBe(false);
      expect(d.state().type).toBe('idle');
      expect(d.pid()).toBe(pid);
    } finally {
      await d.close();
    }
    expect(await waitNoLeftovers(marker)).toEqual([]);
  });

  it.each<[string, ApprovalAnswer, boolean]>([
    ['allow_once', { type: 'allow_once' }, true],
    ['deny', { type: 'deny', reason: 'denied from the phone' }, false],
  ])('asks, and %s decides whether the shell tool runs', async (name, answer, runs) => {
    const id = `ask-${cli.kind}-${name}`;
    const base = await scenario(id, { mode: 'tool', reply: 'After the tool.', tool: cli.tool(cli.command) });
    const state = stateDir(cli.kind);
    const { d, marker } = build(cli, state, base);
    const asked: ApprovalQuestion[] = [];
    const approve: Approver = async (q) => {
      asked.push(q);
      return answer;
    };
    try {
      const o = await d.open({ type: 'new' });
      if (o.type !== 'ok') throw new Error(`open: ${o.message} ${o.detail ?? ''}`);
      const r = await d.turn({ prompt: 'run the tool', timeoutMs: 90_000, approve });
      expect(r).toMatchObject({ type: 'ok', text: expect.stringContaining('After the tool.') });
      expect(asked.length, JSON.stringify(asked)).toBeGreaterThanOrEqual(1);
      expect(asked[0]?.toolKind).toMatch(cli.kindAsked);
      expect(asked[0]?.summary).toContain(FILE);
      expect(existsSync(join(state, 'work', FILE))).toBe(runs);
    } finally {
      await d.close();
    }
    expect(await waitNoLeftovers(marker)).toEqual([]);
  });
});
