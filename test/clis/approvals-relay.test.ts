// Approvals from the phone end to end with each real CLI: the whole relay (relay-rig.ts:
// startRelay, queue, warm pool, the interactions desk that builds the Approver, outbox, store) with
// `agent.permissions: 'ask'`, in the netns against the fake model server's `tool` mode. The model
// makes the CLI run its own shell tool to create a file; the CLI asks (claude's permission prompt,
// codex's approval request, ACP's session/request_permission, pi's permission-gate extension); the
// question reaches the chat as one short message; the approver answers with a number from the
// chat. `3`: the file is not created and the turn still ends with the model's reply. `1`: it is.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentKind } from '../../src/agents/types.js';
import type { ToolCall } from './fake-model/scenario.js';
import { toolResults } from './fake-model/tools.js';
import { requests, scenario } from './harness.js';
import { type RelayRig, relayRig, waitSent } from './relay-rig.js';

const A = '+15550000003';
const CASE_MS = 300_000;
const PI_PKG = '@mariozechner/pi-coding-agent';
const CHOICES = '1 allow once · 2 allow for this chat · 3 deny';

interface Cli {
  kind: AgentKind;
  /** The model's call to the CLI's own shell tool (names as test/clis/ask-warm.test.ts has them). */
  tool: (command: string) => ToolCall;
  /** The shell command that creates `file` (pi's gate asks about `rm -rf` only). */
  command: (file: string) => string;
  /** Arguments after the program (pi: the extension that asks). */
  args?: () => string[];
}

const touch = (file: string) => `touch ${file}`;
const CLIS: Cli[] = [
  {
    kind: 'claude',
    tool: (command) => ({ name: 'Bash', input: { command, description: 'Run the scripted tool command' } }),
    command: touch,
  },
  {
    kind: 'codex',
    // codex hands the model "still running" after yield_time_ms (10 s by default): on a loaded
    // machine a slow start of the shell must not end the turn before the command has run.
    tool: (cmd) => ({ name: 'exec_command', input: { cmd, yield_time_ms: 60_000 } }),
    command: touch,
  },
  {
    kind: 'gemini',
    tool: (command) => ({
      name: 'run_shell_command',
      input: { command, description: 'Run the scripted tool command' },
    }),
    command: touch,
  },
  {
    kind: 'opencode',
    tool: (command) => ({ name: 'bash', input: { command, description: 'Run the scripted tool command' } }),
    command: touch,
  },
  {
    kind: 'pi',
    tool: (command) => ({ name: 'bash', input: { command } }),
    command: (file) => `touch ${file} && rm -rf no-such-dir`,
    args: () => [
      '-e',
      join(inject('clisDir'), 'pi', 'node_modules', PI_PKG, 'examples', 'extensions', 'permission-gate.ts'),
    ],
  },
];

describe.each(CLIS)('$kind warm (real CLI), permissions ask: approvals from the phone', (cli) => {
  const id = `${cli.kind}-approvals-${randomUUID().slice(0, 8)}`;
  let rig: RelayRig;

  beforeAll(async () => {
    rig = relayRig(cli.kind, await scenario(id, { reply: 'Noted.' }), {
      permissions: 'ask',
      // A is the owner: a member's runs deny permission requests without asking (docs/access.md).
      owners: [A],
      approvals: { approvers: [A] },
      ...(cli.args && { args: cli.args() }),
    });
    await rig.start();
  });
  afterAll(async () => {
    await rig?.stop();
  });

  /** One turn in which the model runs `file`'s command; the approver answers `answer`. */
  async function turnAnswered(
    file: string,
    answer: string,
  ): Promise<{ asked: string; after: string[]; result: string }> {
    await scenario(id, { mode: 'tool', tool: cli.tool(cli.command(file)), reply: 'After the tool.' });
    const n = rig.sent.length;
    await rig.type(A, `make ${file}`);
    const q = await waitSent(
      rig,
      n,
      (t) => t.includes(CHOICES),
      180_000,
      (t) => t === 'After the tool.',
    );
    expect(q.chatId).toBe(A);
    // Nothing was run before the answer.
    expect(existsSync(join(rig.work, file))).toBe(false);
    await rig.type(A, answer);
    await rig.relay().queue.whenIdle();
    const after = rig.sent.slice(n).map((s) => s.text);
    const last = (await requests(id)).filter((r) => r.kind === 'model').at(-1);
    const result = last ? toolResults(last.api ?? 'anthropic', last.body as Record<string, unknown>) : 'none';
    return { asked: q.text, after, result };
  }

  it('3 denies: the file is not created, and the turn still replies', { timeout: CASE_MS }, async () => {
    const file = `denied-${cli.kind}`;
    const { asked, after, result } = await turnAnswered(file, '3');
    const [first, choices] = asked.split('\n');
    expect(first).toMatch(new RegExp(`^${cli.kind} wants to .*${file}`));
    expect(choices).toBe(CHOICES);
    // The confirmation names the request in one plain line (the question itself shows it exactly,
    // hidden characters written out, so the two differ where the CLI's text has line breaks: pi's).
    expect(after.some((t) => t.startsWith(`Denied: ${cli.kind} wants to `) && t.includes(file))).toBe(true);
    expect(after.at(-1)).toBe('After the tool.');
    expect(existsSync(join(rig.work, file)), `the tool's result: ${result}`).toBe(false);
    // The answer was taken as the chat command /deny, never a message to run.
    expect(rig.inbox().filter((r) => r.text === '3')).toEqual([{ text: '3', status: 'done', note: 'deny' }]);
  });

  it('1 allows once: the file is created, and the turn replies', { timeout: CASE_MS }, async () => {
    const file = `allowed-${cli.kind}`;
    const { asked, after, result } = await turnAnswered(file, '1');
    expect(asked).toMatch(new RegExp(`^${cli.kind} wants to .*${file}`));
    expect(after.some((t) => t.startsWith(`Allowed once: ${cli.kind} wants to `) && t.includes(file))).toBe(
      true,
    );
    expect(after.at(-1)).toBe('After the tool.');
    // A CLI may hand the model a command's output before the command has quite finished (codex's
    // exec_command yields after a while): the file is looked for a little longer, not timed.
    const until = Date.now() + 15_000;
    while (!existsSync(join(rig.work, file)) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(join(rig.work, file)), `the tool's result: ${result}`).toBe(true);
    expect(rig.inbox().filter((r) => r.text === '1')).toEqual([
      { text: '1', status: 'done', note: 'approve' },
    ]);
  });

  it('2 allows for this chat: the file is created, and the next call of that kind is not asked', {
    timeout: CASE_MS,
  }, async () => {
    const file = `remembered-${cli.kind}`;
    const { after, result } = await turnAnswered(file, '2');
    expect(after.some((t) => t.startsWith('Allowed for this chat from now on: '))).toBe(true);
    expect(after.at(-1)).toBe('After the tool.');
    const until = Date.now() + 15_000;
    while (!existsSync(join(rig.work, file)) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(join(rig.work, file)), `the tool's result: ${result}`).toBe(true);

    // The next turn's shell call runs without a question.
    const again = `unasked-${cli.kind}`;
    await scenario(id, { mode: 'tool', tool: cli.tool(cli.command(again)), reply: 'After the tool.' });
    const n = rig.sent.length;
    await rig.say(A, `make ${again}`);
    expect(rig.sent.slice(n).map((s) => s.text)).toEqual(['After the tool.']);
    const until2 = Date.now() + 15_000;
    while (!existsSync(join(rig.work, again)) && Date.now() < until2)
      await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(join(rig.work, again))).toBe(true);
  });
});
