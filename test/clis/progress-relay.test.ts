// Live progress with the real CLIs, warm, through the whole relay (relay-rig.ts: startRelay, queue,
// warm pool, outbox, store) on a chat of a channel that edits (telegram's capabilities), in the netns
// against the fake model server's `tool` mode: the model makes the CLI run its own shell tool once,
// and the run's status message (sent, then edited) names that tool and its command, ends on the
// summary, and the answer is its own message, sent once.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentKind } from '../../src/agents/types.js';
import type { ToolCall } from './fake-model/scenario.js';
import { scenario } from './harness.js';
import { type RelayRig, relayRig } from './relay-rig.js';

const CHAT = '42';
const CASE_MS = 240_000;

const CLIS: { kind: AgentKind; tool: (command: string) => ToolCall }[] = [
  {
    kind: 'claude',
    tool: (command) => ({ name: 'Bash', input: { command, description: 'Wait a moment' } }),
  },
  {
    kind: 'codex',
    // codex hands the model "still running" after yield_time_ms: the command must end first.
    tool: (cmd) => ({ name: 'exec_command', input: { cmd, yield_time_ms: 60_000 } }),
  },
];

const rigs: RelayRig[] = [];
afterAll(async () => {
  for (const r of rigs) await r.stop();
});

describe('live progress with the real CLIs (warm)', () => {
  for (const cli of CLIS) {
    it(`${cli.kind}: the status message names the tool it runs, then ends on the summary`, {
      timeout: CASE_MS,
    }, async () => {
      const id = `${cli.kind}-progress-${randomUUID().slice(0, 8)}`;
      const base = await scenario(id, { mode: 'tool', tool: cli.tool('sleep 2'), reply: 'After the tool.' });
      const rig = relayRig(cli.kind, base, { channel: 'telegram', progress: 'status', permissions: 'allow' });
      rigs.push(rig);
      await rig.start();
      await rig.say(CHAT, 'run the slow command');

      const texts = rig.sent.map((s) => s.text);
      // The answer once; the status message before it, sent once (its edits are `[edit <id>] …`).
      expect(texts.filter((t) => t === 'After the tool.')).toHaveLength(1);
      const status = texts.filter((t) => t !== 'After the tool.' && !t.startsWith('[edit '));
      expect(status, texts.join('\n')).toHaveLength(1);
      const lines = [
        status[0]!,
        ...texts.filter((t) => t.startsWith('[edit ')).map((t) => t.replace(/^\[edit \S+\] /, '')),
      ];
      // The tool, by what it does and its command, as the CLI reported it.
      expect(
        lines.some((l) => /^running `[^`]*sleep 2[^`]*`/.test(l)),
        lines.join('\n'),
      ).toBe(true);
      expect(lines.at(-1)).toMatch(/^1 tool, \d+ s$/);
      console.log(`${cli.kind} status lines:\n${lines.join('\n')}`);
    });
  }
});
