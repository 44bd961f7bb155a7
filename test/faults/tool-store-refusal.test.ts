// A store that refuses the tool's write, through the built relay (`agentwire relay` from dist/, a real
// child process): while the fake agent (a real MCP client, test/e2e/fixtures/fake-tool-cli.mjs) calls
// send_message, this test holds the database's write lock from its own connection for longer than
// the relay's busy timeout, so the relay's write is refused exactly as on a full disk (both are the
// store's retryable refusal, store/result.ts). The agent must be told that message was not sent, and
// once the store has room again its next send_message is stored and reaches the person exactly once.
// Needs `npm run build` first.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import { MAIN, waitFor } from '../e2e/helpers.js';
import { type Rig, startRig } from '../e2e/interact-rig.js';

const TOOL_CLI = join(process.cwd(), 'test/e2e/fixtures/fake-tool-cli.mjs');
const LOST = 'written while the store refused it';
const LATER = 'written once the store had room';
const PROMPT = `TOOLS: ${JSON.stringify([
  { gate: 'full' },
  { name: 'send_message', arguments: { text: LOST } },
  { gate: 'free' },
  { name: 'send_message', arguments: { text: LATER } },
])}`;

let rig: Rig | undefined;
let locker: DatabaseSync | undefined;
afterEach(async () => {
  if (locker?.isOpen) locker.close();
  await rig?.close();
  rig = undefined;
  locker = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

/** The calls the fake made so far, as it saw their results (one line per call, as they come). */
function called(file: string): { name: string; isError: boolean; text: string }[] {
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
}

describe('send_message when the store refuses the write', () => {
  it('the agent is told it was not sent; its next message, stored, arrives exactly once', async () => {
    const r = await startRig({ agent: { command: [process.execPath, TOOL_CLI] } });
    rig = r;
    r.start();
    expect(await r.sms(PROMPT)).toBe(200);
    const log = r.home.fakeLog;
    const started = await waitFor(
      () => existsSync(log) && readFileSync(log, 'utf8').includes('"tools"'),
      20_000,
    );
    expect(started, 'the fake agent never started').toBe(true);

    // The store refuses writes: the relay's next write waits out its busy timeout (5 s) and fails.
    locker = new DatabaseSync(sqliteFile(r.home.ctx().paths.home));
    locker.exec('PRAGMA busy_timeout = 10000');
    locker.exec('BEGIN IMMEDIATE');
    writeFileSync(`${log}.gate-full`, '');
    const answered = await waitFor(() => called(`${log}.called`).length >= 1, 30_000);
    expect(answered, 'send_message never answered').toBe(true);
    locker.exec('ROLLBACK');
    locker.close();
    writeFileSync(`${log}.gate-free`, '');

    await r.sent(/^reply: /, { ms: 30_000 });
    const [first, second] = called(`${log}.called`);
    // Told, in words it can act on, rather than "Sent".
    expect(first).toEqual({
      name: 'send_message',
      isError: true,
      text: expect.stringMatching(/^send_message: not sent: .*try again/),
    });
    expect(second).toEqual({ name: 'send_message', isError: false, text: expect.stringMatching(/^Sent /) });
    await r.sent(LATER);
    // Settle: nothing of the run is left to send once its reply is out.
    const rows = () => {
      const db = new DatabaseSync(sqliteFile(r.home.ctx().paths.home), { readOnly: true });
      try {
        return db
          .prepare("SELECT key, status, item FROM outbox WHERE key LIKE 'tool:%' ORDER BY id")
          .all() as {
          key: string;
          status: string;
          item: string;
        }[];
      } finally {
        db.close();
      }
    };
    expect(await waitFor(() => rows().every((x) => x.status === 'sent'), 10_000)).toBe(true);
    expect(r.bodies().filter((b) => b === LATER)).toHaveLength(1);
    expect(r.bodies()).not.toContain(LOST);
    // One row, for the message that was stored, under the first key (the refused call used none).
    expect(rows().map((x) => [x.key.replace(/^tool:.+:msg:/, 'msg:'), JSON.parse(x.item).text])).toEqual([
      ['msg:1', LATER],
    ]);
    expect(r.bodies().find((b) => b.startsWith('reply: '))).toMatch(
      /^reply: send_message error: send_message: not sent: .*\nsend_message ok: Sent/,
    );
  }, 90_000);
});
