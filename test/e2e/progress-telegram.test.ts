// Live progress through the built relay (its own process) on the fake Telegram Bot API, with the fake
// warm claude making a burst of tool calls: one status message, edited in place at most once a
// second, left on its summary; the answer its own message, sent once. Killed mid-run (SIGKILL), the
// status message is finished "interrupted" by the next start, and the rerun answers once.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_TEXT } from '../../src/queue/progress-outbox.js';
import { dm, type FakeBotApi, startFakeBotApi, TOKEN } from '../channels/telegram/fake-bot-api.js';
import { alive, type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from './helpers.js';

const CLAUDE = join(import.meta.dirname, '..', 'fixtures', 'fake-claude-stream.mjs');
let home: Home | undefined;
let api: FakeBotApi | undefined;
let state = '';
const procs: Proc[] = [];

const starts = () =>
  existsSync(join(state, 'starts.jsonl'))
    ? readFileSync(join(state, 'starts.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { pid: number })
    : [];

afterEach(async () => {
  for (const p of procs.splice(0)) {
    if (p.child.exitCode === null && p.child.signalCode === null) {
      p.child.kill('SIGKILL');
      await p.exit;
    }
  }
  for (const s of starts()) if (alive(s.pid)) process.kill(s.pid, 'SIGKILL');
  await api?.close();
  api = undefined;
  home?.cleanup();
  home = undefined;
  if (state) rmSync(state, { recursive: true, force: true });
  state = '';
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

async function setup(): Promise<void> {
  api = await startFakeBotApi();
  state = mkdtempSync(join(tmpdir(), 'aw-progress-e2e-'));
  home = makeHome({
    telegram: { enabled: true, apiRoot: api.url, allowFrom: [42], progress: 'status' },
    agent: {
      kind: 'claude',
      mode: 'warm',
      command: [process.execPath, CLAUDE],
      env: { FAKE_CLAUDE_LOG: join(state, 'starts.jsonl') },
    },
  });
}

function relay(): Proc {
  const p = spawnNode([MAIN, 'relay'], { ...home!.env, TELEGRAM_BOT_TOKEN: TOKEN });
  procs.push(p);
  return p;
}

const sends = () => api!.callsOf('sendMessage').map((c) => String(c.params.text));
const edits = () =>
  api!
    .callsOf('editMessageText')
    .map((c) => ({ id: Number(c.params.message_id), text: String(c.params.text) }));

describe('live progress through the relay on Telegram', () => {
  it('30 tool calls: one status message, at most 10 edits of it ending on the summary, one answer', async () => {
    await setup();
    const p = relay();
    api!.push(dm(42, 'tools 30 100', 1));
    const answered = () => sends().filter((t) => t === 'Ran 30 tools.').length === 1;
    const summarised = () => edits().some((e) => /^30 tools, \d+ s$/.test(e.text));
    expect(await waitFor(() => answered() && summarised(), 60_000), p.stderr()).toBe(true);

    // The status message and the answer, each sent once.
    expect(sends()).toHaveLength(2);
    expect(sends()[0]).toMatch(/^running <code>cat f\d+\.txt<\/code>$/);
    expect(sends()[1]).toBe('Ran 30 tools.');
    const statusId = edits()[0]?.id;
    expect(edits().every((e) => e.id === statusId)).toBe(true);
    expect(edits().length).toBeLessThanOrEqual(10);
    expect(edits().at(-1)?.text).toMatch(/^30 tools, \d+ s$/);
    // Edits between the first and the summary showed later tool calls, not stale ones.
    expect(edits().length).toBeGreaterThanOrEqual(2);
    console.log(`progress e2e: ${edits().length} edits of the status message for 30 tool calls`);
  });

  it('SIGKILL mid-run: the status message ends "interrupted", the rerun answers once', async () => {
    await setup();
    const first = relay();
    api!.push(dm(42, 'tools 20 300', 1));
    // Mid-run: the status message is out and has been edited at least once.
    expect(await waitFor(() => sends().length === 1 && edits().length >= 1, 60_000), first.stderr()).toBe(
      true,
    );
    first.child.kill('SIGKILL');
    await first.exit;
    const deadStatus = edits()[0]!.id;
    expect(sends().filter((t) => t.startsWith('Ran'))).toHaveLength(0);

    const second = relay();
    const done = () => sends().filter((t) => t === 'Ran 20 tools.').length === 1;
    const rerunSummary = () => edits().some((e) => e.id !== deadStatus && /^20 tools, \d+ s$/.test(e.text));
    const interrupted = () => edits().some((e) => e.id === deadStatus && e.text === INTERRUPTED_TEXT);
    expect(await waitFor(() => done() && rerunSummary() && interrupted(), 60_000), second.stderr()).toBe(
      true,
    );

    // The dead run's message: its last edit says it was interrupted, once.
    const ofDead = edits().filter((e) => e.id === deadStatus);
    expect(ofDead.at(-1)?.text).toBe(INTERRUPTED_TEXT);
    expect(ofDead.filter((e) => e.text === INTERRUPTED_TEXT)).toHaveLength(1);
    // Sent: the dead run's status, the rerun's status, the answer once.
    expect(sends()).toHaveLength(3);
    expect(sends().filter((t) => t.startsWith('Ran'))).toEqual(['Ran 20 tools.']);
    const rerunEdits = edits().filter((e) => e.id !== deadStatus);
    expect(rerunEdits.length).toBeLessThanOrEqual(10);
    expect(rerunEdits.at(-1)?.text).toMatch(/^20 tools, \d+ s$/);
  });
});
