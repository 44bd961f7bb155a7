// One state folder, three processes of the built agentwire: a relay (with the test channel) and two
// `agentwire chat` beside it, all answering with the fake claude as real child processes. The two
// chats share the console chat: one of them at a time holds its lease and runs it, so every message
// is answered once and none runs twice, whichever terminal it was typed in. A chat paused with
// SIGSTOP past its lease is taken over by the other, and on waking writes and prints nothing.
import { existsSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, sqliteFile } from '../../src/store/sqlite/open.js';
import { type RelayProc, startRelayProc } from '../faults/relay-proc-rig.js';
import { type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from './helpers.js';

/** Messages per process; the machine this runs on is shared, so the bound below is generous. */
const N = Number(process.env.SHARED_HOME_MESSAGES ?? 50);

let relay: RelayProc | undefined;
let home: Home | undefined;
const chats: Proc[] = [];

afterEach(async () => {
  for (const c of chats.splice(0)) {
    if (c.child.exitCode === null && c.child.signalCode === null) {
      c.child.kill('SIGCONT');
      c.child.kill('SIGKILL');
      await c.exit;
    }
  }
  await relay?.close();
  relay = undefined;
  home?.cleanup();
  home = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const CONFIG = { queue: { whileBusy: 'followup', maxPendingPerChat: 1000, leaseSeconds: 2 } };

function chat(r: { home: Home }): Proc {
  const p = spawnNode([MAIN, 'chat'], r.home.env);
  chats.push(p);
  return p;
}

/** How often each line appears in `text`. */
function counts(text: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const l of text.split('\n').filter(Boolean)) m.set(l, (m.get(l) ?? 0) + 1);
  return m;
}

describe('two agentwire chat and a relay on one state folder', () => {
  it(`${N} messages each: every one answered once, none run twice`, { timeout: 600_000 }, async () => {
    relay = await startRelayProc(CONFIG);
    const r = relay;
    const [a, b] = [chat(r), chat(r)];
    const relayed: Promise<unknown>[] = [];
    for (let i = 1; i <= N; i++) {
      a.child.stdin?.write(`a${i}\n`);
      b.child.stdin?.write(`b${i}\n`);
      relayed.push(r.say(`+1555000000${i % 3}`, `r${i}`));
    }
    expect((await Promise.all(relayed)).every((o) => (o as { type: string }).type === 'stored')).toBe(true);
    const replies = () => counts(a.stdout() + b.stdout());
    const done = await waitFor(
      () => replies().size >= 2 * N && r.sent().filter((t) => t.startsWith('reply: r')).length >= N,
      540_000,
    );
    expect(done, `chat A: ${a.stderr().slice(-2000)}\nchat B: ${b.stderr().slice(-2000)}`).toBe(true);
    const printed = replies();
    const expected = [...Array(N).keys()].flatMap((i) => [`reply: a${i + 1}`, `reply: b${i + 1}`]);
    expect(expected.filter((line) => printed.get(line) !== 1)).toEqual([]);
    expect([...printed.keys()].filter((line) => !expected.includes(line))).toEqual([]);
    const sent = counts(r.sent().join('\n'));
    expect([...Array(N).keys()].filter((i) => sent.get(`reply: r${i + 1}`) !== 1)).toEqual([]);
    // None ran twice: one start of the fake CLI per message, across the three processes.
    const starts = counts(
      r.home
        .events()
        .filter((e) => e.ev === 'start')
        .map((e) => e.prompt ?? '')
        .join('\n'),
    );
    expect([...starts.values()].filter((n) => n !== 1)).toEqual([]);
    expect(starts.size).toBe(3 * N);
    a.child.stdin?.end();
    b.child.stdin?.end();
    expect((await a.exit).code).toBe(0);
    expect((await b.exit).code).toBe(0);
  });

  it('a chat paused past its lease is taken over, and on waking writes and prints nothing', {
    timeout: 180_000,
  }, async () => {
    relay = await startRelayProc(CONFIG);
    const r = relay;
    const a = chat(r);
    a.child.stdin?.write('slow sleep:3000\n');
    const started = () => r.home.events().filter((e) => e.ev === 'start' && e.prompt === 'slow sleep:3000');
    expect(await waitFor(() => started().length === 1, 60_000)).toBe(true);
    a.child.kill('SIGSTOP');
    // B opens the store while A is paused: A's lease runs out (2 s) and B runs the message again.
    const b = chat(r);
    expect(await waitFor(() => started().length === 2, 60_000), b.stderr()).toBe(true);
    expect(await waitFor(() => b.stdout().includes('reply: slow sleep:3000'), 60_000)).toBe(true);
    // A's own agent run has ended meanwhile (its child was not paused): A wakes with its answer.
    expect(await waitFor(() => r.home.events().filter((e) => e.ev === 'end').length >= 2, 60_000)).toBe(true);
    a.child.kill('SIGCONT');
    // A message typed in A afterwards is answered once, by whichever holds the chat now, in the
    // session B's run kept: A's late answer (and the session it would keep) was refused.
    a.child.stdin?.write('after\n');
    expect(await waitFor(() => (a.stdout() + b.stdout()).includes('reply: after'), 60_000)).toBe(true);
    const [, successor] = started();
    const after = r.home.events().filter((e) => e.ev === 'start' && e.prompt === 'after');
    expect(after.map((e) => [e.resume, e.session])).toEqual([[true, successor?.session]]);
    expect(a.stdout()).not.toContain('reply: slow');
    expect(counts(a.stdout() + b.stdout()).get('reply: slow sleep:3000')).toBe(1);
    expect(await waitFor(() => a.stderr().includes('writes nothing more'), 60_000), a.stderr()).toBe(true);
    a.child.stdin?.end();
    b.child.stdin?.end();
    expect((await a.exit).code).toBe(0);
    expect((await b.exit).code).toBe(0);
  });

  it("the console chat's task fires once, in the one chat that leads its scheduler", {
    timeout: 120_000,
  }, async () => {
    home = makeHome(CONFIG);
    const h = home;
    const store = await openSqliteStore(sqliteFile(h.ctx().paths.home));
    try {
      // Both chats registered in the shared store before the task exists, so both are live when it
      // falls due; then the task is added and the others told, as a tool call in either chat does.
      const [a, b] = [chat({ home: h }), chat({ home: h })];
      const up = () => store.ownership.processes().then((ps) => ps.length === 2);
      const end0 = Date.now() + 60_000;
      while (!(await up()) && Date.now() < end0) await new Promise((r) => setTimeout(r, 20));
      expect(await up(), a.stderr() + b.stderr()).toBe(true);
      const at = new Date(Date.now() + 500).toISOString();
      const added = await store.tasks.add(
        { chat: 'console:local', prompt: 'tick-task', at },
        'k1',
        10,
        Date.now(),
      );
      expect(added.type).toBe('added');
      await store.ownership.notify('tasks_changed', '', 'test', Date.now());
      const runs = () => h.events().filter((e) => e.ev === 'start' && e.prompt?.includes('tick-task'));
      // Fired, answered (the fake's end events name no prompt: its reply is the sign), and the
      // one-shot task removed: whatever would fire it has fired.
      const replied = () => (a.stdout() + b.stdout()).includes('reply: tick-task');
      expect(await waitFor(replied, 90_000), a.stderr() + b.stderr()).toBe(true);
      const end = Date.now() + 30_000;
      while ((await store.tasks.all()).length > 0 && Date.now() < end)
        await new Promise((r) => setTimeout(r, 20));
      expect(await store.tasks.all()).toEqual([]);
      expect(runs()).toHaveLength(1);
      a.child.stdin?.end();
      b.child.stdin?.end();
      expect((await a.exit).code).toBe(0);
      expect((await b.exit).code).toBe(0);
      expect(runs()).toHaveLength(1);
    } finally {
      await store.close();
    }
  });
});
