// The status feed alone, with a recording port and a clock the test moves: what reaches the port,
// in which order, and that a failing port costs nothing but the status message.
import { describe, expect, it, vi } from 'vitest';
import { channelCapabilities } from '../../src/channels/registry.js';
import type { ProgressEvent } from '../../src/core/progress-event.js';
import { createLogger } from '../../src/log.js';
import { type FeedOptions, progressFeed, statusFeed } from '../../src/queue/progress-feed.js';
import type { ProgressEnd, ProgressPort, ProgressRun } from '../../src/queue/progress-port.js';
import { NO_PROGRESS } from '../../src/queue/progress-port.js';

type Call = [type: 'start' | 'update' | 'finish', what: string | ProgressEnd];

function recorder(fail?: 'update'): ProgressPort & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    editIntervalMs: () => 1000,
    start: async (_run: ProgressRun, text: string) => {
      calls.push(['start', text]);
    },
    update: async (_run: ProgressRun, text: string) => {
      calls.push(['update', text]);
      if (fail === 'update') throw new Error('the platform said no');
    },
    finish: async (_run: ProgressRun, end: ProgressEnd) => {
      calls.push(['finish', end]);
    },
  };
}

const run: ProgressRun = { chat: 'console:local' as never, key: 'status:in:1' };
const setup = (port: ProgressPort, over: Partial<FeedOptions> = {}) => {
  const clock = { now: 0 };
  const feed = progressFeed({
    port,
    run,
    settings: { mode: 'status', end: 'summary' },
    minIntervalMs: 1000,
    now: () => clock.now,
    log: createLogger({ level: 'silent' }),
    tickMs: 10,
    ...over,
  });
  const at = (ev: ProgressEvent) => feed.listener(ev);
  return { feed, clock, at };
};

describe('progressFeed', () => {
  it('redraws a long tool so its time counts up, then ends with the summary', async () => {
    const port = recorder();
    const { feed, clock, at } = setup(port);
    at({ type: 'tool', id: 't', name: 'Bash', detail: 'npm test', at: 0 });
    clock.now = 12_000;
    await vi.waitFor(() => expect(port.calls).toContainEqual(['update', 'running `npm test` (12 s)']));
    at({ type: 'tool_done', id: 't', ok: true, at: 12_000 });
    clock.now = 48_000;
    await feed.finish();
    await feed.finish();
    expect(port.calls[0]).toEqual(['start', 'running `npm test`']);
    expect(port.calls.at(-1)).toEqual(['finish', { type: 'summary', text: '1 tool, 48 s' }]);
    expect(port.calls.filter((c) => c[0] === 'finish')).toHaveLength(1);
  });

  it('a port that fails costs the edit only: the next line and the finish still go', async () => {
    const port = recorder('update');
    const { feed, clock, at } = setup(port, { settings: { mode: 'status', end: 'delete' } });
    at({ type: 'tool', id: 'a', name: 'Read', detail: 'a.ts', at: 0 });
    clock.now = 1000;
    at({ type: 'tool', id: 'b', name: 'Read', detail: 'b.ts', at: 1000 });
    clock.now = 2000;
    at({ type: 'tool', id: 'c', name: 'Read', detail: 'c.ts', at: 2000 });
    await vi.waitFor(() => expect(port.calls).toContainEqual(['update', 'reading c.ts']));
    await feed.finish();
    // The summary goes along, for a channel that cannot delete.
    expect(port.calls.at(-1)).toEqual(['finish', { type: 'delete', text: '3 tools, 2 s' }]);
  });

  it('a run that showed nothing has no message to finish, and events after the end are ignored', async () => {
    const port = recorder();
    const { feed, at } = setup(port);
    await feed.finish();
    at({ type: 'thinking', at: 1 });
    expect(port.calls).toEqual([]);
  });

  it('a short answer without tools gets no status message at all', async () => {
    const port = recorder();
    const { feed, clock, at } = setup(port);
    at({ type: 'thinking', at: 0 });
    clock.now = 1500;
    at({ type: 'text', delta: 'Sure, here it is.', at: 1500 });
    clock.now = 4999;
    at({ type: 'text', delta: ' Done.', at: 4999 });
    await feed.finish();
    expect(port.calls).toEqual([]);
  });

  it('a CLI silent until its end: its late events start no status message before the answer', async () => {
    const port = recorder();
    const { feed, clock, at } = setup(port);
    clock.now = 20_000;
    at({ type: 'thinking', at: 20_000 });
    at({ type: 'text', delta: 'All done.', at: 20_000 });
    await feed.finish();
    expect(port.calls).toEqual([]);
  });

  it('without a tool call the status message appears once the delay passed, even with no new event', async () => {
    const port = recorder();
    const { feed, clock, at } = setup(port, { startDelayMs: 30 });
    at({ type: 'thinking', at: 0 });
    expect(port.calls).toEqual([]);
    // The feed's own timer, set for the end of the delay, sends it.
    clock.now = 30;
    await vi.waitFor(() => expect(port.calls).toEqual([['start', 'thinking']]));
    await feed.finish();
    expect(port.calls.at(-1)).toEqual(['finish', { type: 'summary', text: '0 s' }]);
  });

  it('a question starts the status message at once', async () => {
    const port = recorder();
    const { feed, at } = setup(port);
    at({ type: 'asking', question: 'deploy where?', at: 0 });
    await vi.waitFor(() => expect(port.calls).toEqual([['start', 'asking: deploy where?']]));
    await feed.finish();
  });

  it("WhatsApp's pace: 30 tool calls in 10 s are edits at least 2 s apart, the last showing the last call", async () => {
    // The interval WhatsApp's plug-in declares (an account that edits fast looks automated).
    const minIntervalMs = channelCapabilities('whatsapp').editIntervalMs;
    expect(minIntervalMs).toBe(2000);
    vi.useFakeTimers({ now: 0 });
    try {
      const at: number[] = [];
      const port = recorder();
      const timed: ProgressPort = {
        ...port,
        start: (r, text) => {
          at.push(Date.now());
          return port.start(r, text);
        },
        update: (r, text) => {
          at.push(Date.now());
          return port.update(r, text);
        },
      };
      const feed = progressFeed({
        port: timed,
        run,
        settings: { mode: 'status', end: 'summary' },
        minIntervalMs,
        now: Date.now,
        log: createLogger({ level: 'silent' }),
      });
      for (let i = 1; i <= 30; i++) {
        feed.listener({ type: 'tool', id: `t${i}`, name: 'Read', detail: `f${i}.ts`, at: Date.now() });
        await vi.advanceTimersByTimeAsync(150);
        feed.listener({ type: 'tool_done', id: `t${i}`, ok: true, at: Date.now() });
        await vi.advanceTimersByTimeAsync(183);
      }
      await vi.advanceTimersByTimeAsync(2000);
      await feed.finish();
      const gaps = at.slice(1).map((t, i) => t - at[i]!);
      expect(gaps.every((g) => g >= 2000)).toBe(true);
      // One start and at most one edit per 2 s of the 10 s.
      expect(port.calls.filter((c) => c[0] === 'start')).toHaveLength(1);
      expect(port.calls.filter((c) => c[0] === 'update').length).toBeLessThanOrEqual(5);
      expect(port.calls.filter((c) => c[0] === 'update').at(-1)).toEqual(['update', 'reading f30.ts']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('statusFeed: none when off or when the channel cannot edit', () => {
    const deps = { now: () => 0, log: createLogger({ level: 'silent' }) };
    expect(statusFeed(undefined, run, deps)).toBeUndefined();
    expect(
      statusFeed({ port: NO_PROGRESS, settings: { mode: 'status', end: 'summary' } }, run, deps),
    ).toBeUndefined();
    expect(
      statusFeed({ port: recorder(), settings: { mode: 'status', end: 'summary' } }, run, deps),
    ).toBeDefined();
  });
});
