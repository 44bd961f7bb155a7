// The crash suite's tools row: the built relay takes a signed Twilio webhook, the fake claude
// (a real MCP client starting `agentwire mcp` from dist/) calls send_message and then blocks, and the
// relay is killed with SIGKILL between the send and the end of the run. After a restart the run is
// redone from the start, calls send_message again, and ends. Whatever the moment of the kill, the
// fake Twilio REST API must have created the tool's message exactly once and the final reply once:
// the outbox key is made from the run and the call, so the redo's send finds the first one's row.
// Needs `npm run build` first.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { postWhenUp, smsParams } from '../channels/twilio/helpers/harness.js';
import {
  freePort,
  type Home,
  killOrphanGroup,
  logTail,
  MAIN,
  makeHome,
  type Proc,
  spawnNode,
  waitFor,
} from '../e2e/helpers.js';

const TOOL_CLI = join(process.cwd(), 'test/e2e/fixtures/fake-tool-cli.mjs');
const MESSAGE = 'working on it';
// send_message, then a sleep the killed run never wakes from; the redo skips it (`once`) and ends.
const PROMPT = `TOOLS: ${JSON.stringify([
  { name: 'send_message', arguments: { text: MESSAGE } },
  { sleep: 120_000, once: true },
])}`;

let home: Home | undefined;
let fake: FakeTwilio | undefined;
const procs: Proc[] = [];
afterEach(async () => {
  for (const p of procs.splice(0))
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await fake?.close();
  home?.cleanup();
  fake = undefined;
  home = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

interface Crash {
  home: Home;
  fake: FakeTwilio;
  /** A relay process on the same state folder and webhook port. */
  start(): Proc;
  url: string;
  /** The tool messages' outbox rows, read beside the relay (WAL). */
  toolRows(): { key: string; status: string }[];
  /**
   * Waits until the fake CLI has its send_message answer and blocks (it marks that with a file),
   * SIGKILLs the relay, then the fake CLI it left running (only PIDs the fake logged).
   */
  kill(p: Proc): Promise<void>;
}

async function crashRig(): Promise<Crash> {
  const f = await startFakeTwilio();
  const port = await freePort();
  const h = makeHome({
    agent: { command: [process.execPath, TOOL_CLI] },
    twilio: fakeTwilioSection(f, port),
    console: { enabled: false },
  });
  fake = f;
  home = h;
  // Info in the log file (stderr keeps warnings): a failure shows where the redo stopped (run, tool
  // call, each send), not only the takeover (a CI run once waited 40 s for the reply with no more).
  const env = { ...h.env, TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '', AGENTWIRE_LOG_LEVEL: 'info' };
  return {
    home: h,
    fake: f,
    url: `http://127.0.0.1:${port}/twilio/inbound`,
    start() {
      const p = spawnNode([MAIN, 'relay'], env);
      procs.push(p);
      return p;
    },
    toolRows() {
      if (!existsSync(sqliteFile(h.ctx().paths.home))) return [];
      const db = new DatabaseSync(sqliteFile(h.ctx().paths.home), { readOnly: true });
      try {
        return (
          db.prepare("SELECT key, status FROM outbox WHERE key LIKE 'tool:%' ORDER BY id").all() as {
            key: string;
            status: string;
          }[]
        ).map((r) => ({ ...r }));
      } finally {
        db.close();
      }
    },
    async kill(p) {
      const blocked = await waitFor(() => existsSync(`${h.fakeLog}.slept`), 20_000);
      expect(blocked, `the fake CLI never got past send_message: ${p.stderr()}`).toBe(true);
      expect(finishedRuns(h)).toEqual([]);
      p.child.kill('SIGKILL');
      await p.exit;
      for (const e of toolStarts(h)) killOrphanGroup(e.pid);
    },
  };
}

/** Each start of fake-tool-cli.mjs, with its PID (it logs `ev: 'tools'`). */
const toolStarts = (h: Home) => h.events().filter((e) => e.ev === 'tools');

/** The CLI runs that ended, with their tool calls (fake-tool-cli.mjs writes one line per run). */
function finishedRuns(h: Home): { calls: { name: string; isError: boolean; text: string }[] }[] {
  const file = `${h.fakeLog}.tools`;
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
}

/** Restarts the relay, lets the cut-off run be redone, and checks the promise of the row. */
async function restartAndCheck(r: Crash): Promise<void> {
  const bodies = () => r.fake.created.map((m) => m.body ?? '');
  const b = r.start();
  const replied = await waitFor(() => bodies().some((x) => x.startsWith('reply: ')), 40_000);
  const seen = () =>
    `tool rows ${JSON.stringify(r.toolRows())}, Twilio created ${JSON.stringify(bodies())}, ` +
    `CLI starts ${toolStarts(r.home).length}, relay log:\n${logTail(r.home)}`;
  expect(replied, seen()).toBe(true);
  // The redo really ran the tool again (and was told it was sent), rather than skipping it.
  const runs = finishedRuns(r.home);
  expect(runs.map((x) => x.calls.map((c) => [c.name, c.isError]))).toEqual([[['send_message', false]]]);
  expect(toolStarts(r.home)).toHaveLength(2);
  // Settle: anything the restarted relay would still send goes out before it stops.
  await waitFor(() => r.toolRows().every((x) => x.status === 'sent'), 10_000);
  b.child.kill('SIGTERM');
  expect((await b.exit).code).toBe(0);

  expect(bodies().filter((x) => x === MESSAGE)).toHaveLength(1);
  expect(bodies().filter((x) => x.startsWith('reply: '))).toEqual([
    expect.stringMatching(/^reply: send_message ok: Sent/),
  ]);
  expect(bodies().indexOf(MESSAGE)).toBeLessThan(bodies().findIndex((x) => x.startsWith('reply: ')));
  expect(r.fake.created.every((m) => m.to === '+15551234567')).toBe(true);
  // One outbox row for the tool's message, under one key, sent.
  expect(r.toolRows()).toEqual([{ key: expect.stringMatching(/^tool:.+:msg:1$/), status: 'sent' }]);
}

describe('crash suite: the relay is killed after send_message, before the run ends', () => {
  it('after the message was sent and recorded: the redo sends nothing twice', async () => {
    const r = await crashRig();
    const a = r.start();
    expect((await postWhenUp(r.url, smsParams({ Body: PROMPT }))).status).toBe(200);
    expect(await waitFor(() => r.toolRows().some((x) => x.status === 'sent'), 40_000), a.stderr()).toBe(true);
    expect(r.fake.created.map((m) => m.body)).toEqual([MESSAGE]);
    await r.kill(a);
    await restartAndCheck(r);
  }, 120_000);

  it('while the message waited in the outbox (Twilio down): sent once after the restart', async () => {
    const r = await crashRig();
    r.fake.outage({ status: 503, code: 20500 });
    const a = r.start();
    expect((await postWhenUp(r.url, smsParams({ Body: PROMPT }))).status).toBe(200);
    // Stored by the tool and tried at least once, refused by Twilio each time.
    const tried = () => r.fake.attempts.some((x) => x.body === MESSAGE);
    expect(await waitFor(tried, 40_000), a.stderr()).toBe(true);
    expect(r.toolRows().map((x) => x.status)).toEqual(['pending']);
    await r.kill(a);
    r.fake.outage(undefined);
    expect(r.fake.created).toEqual([]);
    await restartAndCheck(r);
  }, 120_000);

  it('while Twilio had taken the message but the relay had not heard: not sent again', async () => {
    const r = await crashRig();
    const held = r.fake.hold((body) => body === MESSAGE, { accepted: true });
    const a = r.start();
    expect((await postWhenUp(r.url, smsParams({ Body: PROMPT }))).status).toBe(200);
    // Bounded, and saying where the message stopped: it once waited out the test's whole limit on a
    // loaded machine, with nothing to tell which step never came.
    let came = false;
    void held.arrived.then(() => {
      came = true;
    });
    const rows = () => JSON.stringify(r.toolRows());
    const starts = () => JSON.stringify(toolStarts(r.home));
    expect(
      await waitFor(() => came, 60_000),
      `the tool's message never reached Twilio: tool rows ${rows()}, CLI starts ${starts()}, relay: ${a.stderr()}`,
    ).toBe(true);
    expect(r.toolRows().map((x) => x.status)).toEqual(['pending']);
    await r.kill(a);
    await held.dropped;
    expect(r.fake.created.map((m) => m.body)).toEqual([MESSAGE]);
    await restartAndCheck(r);
  }, 120_000);
});
