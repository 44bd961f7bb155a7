// The agent's tools end to end: the built `agentwire chat`, a fake claude that is a real MCP client
// (test/e2e/fixtures/fake-tool-cli.mjs) starting the real `agentwire mcp` from dist/ with the env
// and --mcp-config file it was given, and the real store. Needs `npm run build` first.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Home, killOrphanGroup, MAIN, makeHome, type Proc, spawnNode, waitFor } from './helpers.js';

const TOOL_CLI = join(import.meta.dirname, 'fixtures', 'fake-tool-cli.mjs');

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

function toolHome(extra: Record<string, unknown> = {}): Home {
  const h = makeHome({
    ...extra,
    agent: { command: [process.execPath, TOOL_CLI] },
  });
  return h;
}

function toolLog(
  h: Home,
): { argv: string[]; allowed?: string; calls: { name: string; isError: boolean; text: string }[] }[] {
  const file = `${h.fakeLog}.tools`;
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
}

function start(h: Home): Proc {
  const p = spawnNode([MAIN, 'chat'], h.env);
  chat = p;
  return p;
}

const say = (p: Proc, line: string) => p.child.stdin?.write(`${line}\n`);

describe('agent tools through agentwire chat', () => {
  it('send_message arrives once, before the answer; bad calls and escaping paths get errors the agent reads', async () => {
    home = toolHome({ tools: { maxMessagesPerRun: 2 } });
    const p = start(home);
    say(
      p,
      tools([
        { name: 'send_message', arguments: { text: 'working on it' } },
        { name: 'send_message', arguments: {} },
        // Enough `..` to reach / from any temp folder, however deep.
        { name: 'send_file', arguments: { path: `${'../'.repeat(16)}etc/passwd` } },
        { name: 'send_message', arguments: { text: 'halfway there' } },
        { name: 'send_message', arguments: { text: 'one too many' } },
        { name: 'chat_info' },
      ]),
    );
    // Seen once in about six full runs to wait out its 45 s under load: the failure says what the
    // chat, the fake CLI and its tool calls had done by then.
    const replied = await waitFor(() => p.stdout().includes('reply: '), 45_000);
    expect(
      replied,
      `no reply; stderr: ${p.stderr()}; tool calls: ${JSON.stringify(toolLog(home))}; events: ${JSON.stringify(home.events())}`,
    ).toBe(true);
    p.child.stdin?.end();
    expect((await p.exit).code).toBe(0);
    const out = p.stdout();
    expect(count(out, 'working on it')).toBe(1);
    expect(count(out, 'halfway there')).toBe(1);
    expect(out).not.toContain('one too many\n');
    expect(out.indexOf('working on it')).toBeLessThan(out.indexOf('reply: '));
    const [run] = toolLog(home);
    expect(run?.allowed).toContain('mcp__agentwire__send_message');
    // The token travels in the environment and a 0600 file, never in argv.
    expect(run?.argv.join(' ')).not.toMatch(/AGENTWIRE_TOOLS_TOKEN|[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{43}/);
    const calls = run?.calls ?? [];
    expect(calls.map((c) => [c.name, c.isError])).toEqual([
      ['send_message', false],
      ['send_message', true],
      ['send_file', true],
      ['send_message', false],
      ['send_message', true],
      ['chat_info', false],
    ]);
    expect(calls[1]?.text).toMatch(/text/);
    expect(calls[2]?.text).toMatch(/not sent: .*(outside|allowed)/);
    expect(calls[4]?.text).toMatch(/tools\.maxMessagesPerRun/);
    expect(JSON.parse(calls[5]?.text ?? '{}')).toMatchObject({ channel: 'console', isGroup: false });
  }, 120_000);

  it('schedule_task stores a task that /tasks lists and cancels, and a one-shot fires through the scheduler', async () => {
    home = toolHome();
    const p = start(home);
    const at = 'now+6s';
    say(
      p,
      tools([
        { name: 'schedule_task', arguments: { prompt: 'water the plants', every: '1h' } },
        { name: 'schedule_task', arguments: { prompt: 'too often', cron: '* * * * *' } },
        {
          name: 'schedule_task',
          arguments: { prompt: tools([{ name: 'send_message', arguments: { text: 'task fired' } }]), at },
        },
        { name: 'list_tasks' },
      ]),
    );
    expect(await waitFor(() => p.stdout().includes('reply: '), 45_000)).toBe(true);
    const calls = toolLog(home)[0]?.calls ?? [];
    expect(calls.map((c) => [c.name, c.isError])).toEqual([
      ['schedule_task', false],
      ['schedule_task', true],
      ['schedule_task', false],
      ['list_tasks', false],
    ]);
    expect(calls[1]?.text).toMatch(/fires too often/);
    const id = /Scheduled task (t[0-9a-f]+)/.exec(calls[0]?.text ?? '')?.[1];
    expect(id).toBeDefined();
    expect(calls[3]?.text).toContain(`${id}: every 1h: water the plants`);

    say(p, '/tasks');
    expect(await waitFor(() => p.stdout().includes('Tasks (2):'), 45_000)).toBe(true);
    // `agentwire schedules` lists them with the config's schedules, masked target and next run.
    const listed = spawnNode([MAIN, 'schedules', '--json'], home.env);
    expect((await listed.exit).code).toBe(0);
    const rows = JSON.parse(listed.stdout()).schedules as { id: string; timing: string; target: string }[];
    expect(rows.map((r) => [r.id, r.timing, r.target])).toContainEqual([
      `task:${id}`,
      'every 1h',
      'console:…ocal',
    ]);
    // The one-shot fires in the chat, through the scheduler, and its agent uses a tool itself.
    const fired = () => p.stdout().match(/^task fired$/gm)?.length ?? 0;
    expect(await waitFor(() => fired() > 0, 90_000)).toBe(true);
    // Its run's answer: the one-shot is done, so it leaves the store.
    expect(await waitFor(() => p.stdout().includes('reply: send_message ok'), 45_000)).toBe(true);
    say(p, `/tasks cancel ${id}`);
    expect(await waitFor(() => p.stdout().includes(`Cancelled task ${id}.`), 45_000)).toBe(true);
    say(p, '/tasks');
    const gone = await waitFor(() => p.stdout().includes('No tasks are scheduled in this chat.'), 45_000);
    expect(gone, p.stdout() + p.stderr()).toBe(true);
    p.child.stdin?.end();
    expect((await p.exit).code).toBe(0);
    expect(fired()).toBe(1);
  }, 240_000);

  it('a run cut off by a crash after send_message is redone at the next start, and the message is not sent again', async () => {
    home = toolHome();
    const first = start(home);
    say(
      first,
      tools([
        { name: 'send_message', arguments: { text: 'working on it' } },
        { sleep: 60_000, once: true },
      ]),
    );
    // Killed once the message is sent and recorded as sent (a kill between the two would send it
    // again at the next start: the outbox's at-least-once, not the tools' business).
    const sent = () => {
      const db = new DatabaseSync(join(home.dir, 'agentwire.db'), { readOnly: true });
      try {
        return db
          .prepare("SELECT status FROM outbox WHERE key LIKE 'tool:%'")
          .all()
          .map((r) => r.status);
      } finally {
        db.close();
      }
    };
    expect(await waitFor(() => first.stdout().includes('working on it'), 45_000)).toBe(true);
    expect(await waitFor(() => sent().join() === 'sent', 45_000)).toBe(true);
    // And the fake CLI has begun its one sleep: killed before it marks that (its tool call answered,
    // the marker not yet written, as happened under load), the redone run would sleep too, past the
    // run's time limit.
    expect(await waitFor(() => existsSync(`${home.fakeLog}.slept`), 45_000)).toBe(true);
    first.child.kill('SIGKILL');
    await first.exit;
    // The fake CLI of the killed run is left sleeping; stop it (only the PIDs the test started).
    for (const e of home.events()) if (e.pid) killOrphanGroup(e.pid);
    const second = start(home);
    second.child.stdin?.end();
    expect((await second.exit).code).toBe(0);
    // The redone run sent the same message under the same key: the outbox kept the first one only.
    expect(second.stdout()).toContain('reply: send_message ok');
    expect(second.stdout()).not.toContain('working on it');
    expect(sent()).toEqual(['sent']);
  }, 240_000);
});
