// The runner over a real store and a scripted SystemRunner (the queue's seam): one event at a time
// per chat in the stored order, a busy chat waits, quiet events may say HEARTBEAT_OK, and a run cut
// off by a crash is tried once more, then given up.
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agents/types.js';
import type { ChatKey, SystemRunner, SystemRunOptions, SystemRunOutcome } from '../../src/core/types.js';
import type { EventRunner } from '../../src/events/runner.js';
import type { NewEvent } from '../../src/store/sqlite/events.js';
import { fail, ok } from '../queue/helpers.js';
import { useEventsRig, waitFor } from './rig.js';

const rig = useEventsRig('aw-events-run-');

class ScriptedRunner implements SystemRunner {
  readonly runs: { chat: ChatKey; prompt: string; opts: SystemRunOptions }[] = [];
  readonly delivered: { chat: ChatKey; key: string; text: string }[] = [];
  busyFor = 0;
  reply: (prompt: string) => AgentResult = (p) => ok(`reply to ${p.slice(-12)}`);
  async runIfIdle(chat: ChatKey, prompt: string, opts: SystemRunOptions): Promise<SystemRunOutcome> {
    if (this.busyFor > 0) {
      this.busyFor--;
      return { type: 'busy' };
    }
    this.runs.push({ chat, prompt, opts });
    return { type: 'ran', result: this.reply(prompt) };
  }
  async deliver(chat: ChatKey, key: string, text: string): Promise<void> {
    this.delivered.push({ chat, key, text });
  }
}

const ev = (
  chat: string,
  text: string,
  o: Partial<NewEvent> & { opts?: object } = {},
): NewEvent & { key: string } => ({
  key: `test:${chat}:${text}`,
  source: 'trigger',
  chat,
  prompt: text,
  dueAt: 0,
  orderName: text,
  options: JSON.stringify(o.opts ?? {}),
  ...o,
});

function start(r: ScriptedRunner): EventRunner {
  const runner = rig.runnerFor(r, { busyRetryMs: 5 });
  runner.start();
  return runner;
}

describe('EventRunner', () => {
  it('runs each chat in the stored order, one at a time, and each event once', async () => {
    await rig.store.events.addAll(
      [
        ev('telegram:1', 'b', { orderName: 'b', dueAt: 10 }),
        ev('telegram:1', 'a', { orderName: 'a', dueAt: 10 }),
        ev('telegram:1', 'early', { orderName: 'z', dueAt: 5 }),
        ev('telegram:2', 'other'),
      ],
      1,
    );
    const r = new ScriptedRunner();
    start(r);
    expect(await waitFor(() => r.delivered.length === 4, 5000)).toBe(true);
    expect(r.runs.filter((x) => x.chat === 'telegram:1').map((x) => x.prompt)).toEqual(['early', 'a', 'b']);
    expect(new Set(r.runs.map((x) => x.opts.runKey)).size).toBe(4);
    expect(r.runs.every((x) => x.opts.allowNewSession && x.opts.label === 'event')).toBe(true);
    expect((await rig.store.events.open()).length).toBe(0);
  });

  it('1,000 events in two chats each run once, in the stored order, the chats side by side', async () => {
    const n = 1000;
    await rig.store.events.addAll(
      Array.from({ length: n }, (_, i) =>
        ev(i % 2 ? 'telegram:1' : 'telegram:2', `e${String(i).padStart(4, '0')}`, { dueAt: 10 }),
      ),
      1,
    );
    const r = new ScriptedRunner();
    start(r);
    expect(await waitFor(() => r.delivered.length === n, 60_000)).toBe(true);
    for (const chat of ['telegram:1', 'telegram:2']) {
      const order = r.runs.filter((x) => x.chat === chat).map((x) => x.prompt);
      expect(order).toEqual([...order].sort());
      expect(order).toHaveLength(n / 2);
    }
    expect(new Set(r.delivered.map((d) => d.key)).size).toBe(n);
    expect(await rig.store.events.open()).toEqual([]);
  }, 90_000);

  it('a busy chat is tried again until it is free; nothing is lost', async () => {
    await rig.store.events.addAll([ev('telegram:1', 'x')], 1);
    const r = new ScriptedRunner();
    r.busyFor = 3;
    start(r);
    expect(await waitFor(() => r.delivered.length === 1, 5000)).toBe(true);
    expect(r.runs).toHaveLength(1);
  });

  it('a quiet event whose answer is HEARTBEAT_OK sends nothing; one with news sends it', async () => {
    await rig.store.events.addAll(
      [
        ev('telegram:1', 'calm', { opts: { quiet: true } }),
        ev('telegram:2', 'news', { opts: { quiet: true } }),
      ],
      1,
    );
    const r = new ScriptedRunner();
    r.reply = (p) => ok(p === 'calm' ? '**HEARTBEAT_OK**' : 'Build is red');
    start(r);
    expect(
      await waitFor(async () => (await rig.store.events.open()).length === 0 && r.runs.length === 2, 5000),
    ).toBe(true);
    expect(r.delivered.map((d) => [d.chat, d.text])).toEqual([['telegram:2', 'Build is red']]);
    expect(r.runs.every((x) => x.opts.touchIdle === false)).toBe(true);
  });

  it('an event not yet due waits; one asking for active hours waits outside them without holding the chat', async () => {
    const later = Date.now() + 60_000;
    await rig.store.events.addAll(
      [
        ev('telegram:1', 'later', { dueAt: later }),
        ev('telegram:1', 'hours', { opts: { activeHours: true } }),
        ev('telegram:1', 'now', { dueAt: 1 }),
      ],
      1,
    );
    const r = new ScriptedRunner();
    const runner = rig.runnerFor(r, {
      busyRetryMs: 5,
      // A window that is never now: one minute long, twelve hours away.
      activeHours: closedWindow(),
    });
    runner.start();
    expect(await waitFor(() => r.runs.length === 1, 5000)).toBe(true);
    await runner.whenIdle();
    expect(r.runs.map((x) => x.prompt)).toEqual(['now']);
    expect((await rig.store.events.open()).map((e) => e.prompt)).toEqual(['hours', 'later']);
  });

  it('a run cut off by a crash runs once more; cut off twice, it is given up and the chat told', async () => {
    const [once, twice] = await rig.store.events.addAll(
      [ev('telegram:1', 'once'), ev('telegram:2', 'twice')],
      1,
    );
    if (once?.type !== 'added' || twice?.type !== 'added') throw new Error('not added');
    // As a killed relay leaves them: begun, never finished.
    for (const id of [once.id, twice.id, twice.id]) {
      const seen = await rig.store.events.get(id);
      if (!seen) throw new Error(`no event ${id}`);
      await rig.store.events.begin(id, seen);
    }
    const r = new ScriptedRunner();
    start(r);
    expect(await waitFor(() => r.delivered.length === 2, 5000)).toBe(true);
    expect(r.runs.map((x) => x.prompt)).toEqual(['once']);
    expect(r.delivered.find((d) => d.chat === 'telegram:2')?.text).toMatch(/stopped twice while running it/);
    expect((await rig.store.events.get(twice.id))?.outcome).toBe('gave_up');
  });

  it('an event for later survives a restart and runs once, not before its time', async () => {
    const dueAt = Date.now() + 300;
    await rig.store.events.addAll([ev('telegram:1', 'later', { dueAt })], 1);
    const first = new ScriptedRunner();
    start(first);
    await rig.restart();
    const second = new ScriptedRunner();
    start(second);
    expect(await waitFor(() => second.delivered.length === 1, 5000)).toBe(true);
    expect(first.runs).toEqual([]);
    expect(second.runs.map((x) => x.prompt)).toEqual(['later']);
    expect(Date.now()).toBeGreaterThanOrEqual(dueAt);
  });

  it('a failed run tells the chat in one sentence', async () => {
    await rig.store.events.addAll([ev('telegram:1', 'x')], 1);
    const r = new ScriptedRunner();
    r.reply = () => fail('exit', 'the CLI exited with code 3.');
    start(r);
    expect(await waitFor(() => r.delivered.length === 1, 5000)).toBe(true);
    expect(r.delivered[0]?.text).toBe('An event (trigger) failed: the CLI exited with code 3.');
  });
});

function closedWindow(): { start: string; end: string; timeZone: string } {
  const d = new Date(Date.now() + 12 * 3600_000);
  const hh = String(d.getUTCHours()).padStart(2, '0');
  return { start: `${hh}:00`, end: `${hh}:01`, timeZone: 'UTC' };
}
