// The agent's tools in warm mode end to end: the built `agentwire chat` with a warm fake
// claude (test/e2e/fixtures/fake-tool-claude-stream.mjs) that is a real MCP client, starting the
// real `agentwire mcp` from dist/ once from the --mcp-config file its process was started with,
// and keeping it across turns. Two turns in one process: each sends to the chat once, with the
// run's counters fresh; a call between the turns is refused and says why; the per-process config
// file is gone when the chat ends. Needs `npm run build` first.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from './helpers.js';

const WARM_TOOL_CLI = join(import.meta.dirname, 'fixtures', 'fake-tool-claude-stream.mjs');

let home: Home;
let chat: Proc | undefined;
afterEach(() => {
  if (chat && chat.child.exitCode === null) chat.child.kill('SIGKILL');
  chat = undefined;
  home?.cleanup();
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;
const tools = (calls: unknown[]) => `TOOLS: ${JSON.stringify(calls)}`;
const say = (p: Proc, line: string) => p.child.stdin?.write(`${line}\n`);

interface Batch {
  pid: number;
  when: 'turn' | 'after';
  calls: { name: string; isError: boolean; text: string }[];
}
function batches(h: Home): Batch[] {
  const file = `${h.fakeLog}.tools`;
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
}

describe('agent tools in a warm process, through agentwire chat', () => {
  it('two turns in one process each act for their own run; a call between turns is refused', async () => {
    home = makeHome({ agent: { mode: 'warm', command: [process.execPath, WARM_TOOL_CLI] } });
    const p = spawnNode([MAIN, 'chat'], home.env);
    chat = p;
    say(
      p,
      tools([
        { name: 'send_message', arguments: { text: 'first turn note' } },
        { name: 'chat_info' },
        { name: 'send_message', arguments: { text: 'too late' }, after: true },
      ]),
    );
    expect(await waitFor(() => p.stdout().includes('reply: send_message ok'), 45_000), p.stderr()).toBe(true);
    // The call made after the turn ended, before the next: refused, in words the agent can read.
    expect(await waitFor(() => batches(home).some((b) => b.when === 'after'), 45_000)).toBe(true);
    // While the process lives, its MCP config is a 0600 file in the state folder.
    const runs = join(home.dir, 'agents', 'claude', 'tool-runs');
    const live = readdirSync(runs);
    expect(live).toHaveLength(1);

    say(p, tools([{ name: 'send_message', arguments: { text: 'second turn note' } }]));
    expect(await waitFor(() => count(p.stdout(), 'reply: send_message ok') === 2, 45_000), p.stderr()).toBe(
      true,
    );
    p.child.stdin?.end();
    expect((await p.exit).code).toBe(0);

    const b = batches(home);
    // One process served both turns (the second run's token did not restart it).
    expect(new Set(b.map((x) => x.pid)).size).toBe(1);
    expect(home.events().filter((e) => e.ev === 'start')).toHaveLength(1);
    expect(b.map((x) => [x.when, x.calls.map((c) => [c.name, c.isError])])).toEqual([
      [
        'turn',
        [
          ['send_message', false],
          ['chat_info', false],
        ],
      ],
      ['after', [['send_message', true]]],
      ['turn', [['send_message', false]]],
    ]);
    expect(b[1]?.calls[0]?.text).toMatch(/between turns/);
    // Each run's counters start from zero: both sends were the first of their run.
    // (Each names its own message: the ids differ, the counts do not.)
    const counted = (t: string | undefined) => t?.replace(/^Sent as out:\d+ /, 'Sent ');
    expect(b[0]?.calls[0]?.text).toMatch(/^Sent as out:\d+ \(9 more this run\)/);
    expect(counted(b[0]?.calls[0]?.text)).toBe(counted(b[2]?.calls[0]?.text));
    expect(JSON.parse(b[0]?.calls[1]?.text ?? '{}')).toMatchObject({ channel: 'console', isGroup: false });
    const out = p.stdout();
    expect(count(out, 'first turn note')).toBe(1);
    expect(count(out, 'second turn note')).toBe(1);
    expect(out).not.toContain('too late\n');
    // The process closed with the chat: its config file went with it.
    expect(readdirSync(runs)).toEqual([]);
  }, 180_000);
});
