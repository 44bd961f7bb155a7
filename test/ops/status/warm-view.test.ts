// The warm pool in `agentwire status`: chats masked as elsewhere, ages and idle times, memory, and
// the CLIs that run cold, in the JSON and the text view.
import { describe, expect, it } from 'vitest';
import { renderStatus } from '../../../src/ops/status/render.js';
import { buildSnapshot } from '../../../src/ops/status/snapshot.js';
import { warmView } from '../../../src/ops/status/warm-view.js';

const now = Date.parse('2026-11-26T10:00:00Z');

describe('warm view', () => {
  const view = warmView(
    {
      maxProcesses: 4,
      processes: [
        {
          sessionKey: 'whatsapp:4915112345678@s.whatsapp.net',
          kind: 'claude',
          pid: 42,
          startedAt: now - 600_000,
          lastTurnAt: now - 90_000,
          busy: false,
          rssBytes: 225 * 1048576,
        },
        { sessionKey: '*', kind: 'pi', startedAt: now - 5_000, lastTurnAt: now - 5_000, busy: true },
      ],
      fallbacks: [{ kind: 'gemini', reason: 'exit: unknown flag --acp; call +4915112345678' }],
    },
    now,
  );

  it('masks chats and numbers, and gives ages in seconds', () => {
    expect(view.processes[0]).toEqual({
      chat: expect.stringMatching(/@s\.whatsapp\.net$/),
      agent: 'claude',
      pid: 42,
      startedAt: '2026-11-26T09:50:00.000Z',
      lastTurnAt: '2026-11-26T09:58:30.000Z',
      ageSeconds: 600,
      idleSeconds: 90,
      busy: false,
      rssBytes: 225 * 1048576,
    });
    expect(JSON.stringify(view)).not.toContain('4915112345678');
    expect(view.processes[1]).toMatchObject({ chat: '*', busy: true, idleSeconds: 0 });
    expect(view.fallbacks).toEqual([
      { agent: 'gemini', reason: expect.stringContaining('unknown flag --acp') },
    ]);
  });

  it('the text view lists each process and each fallback', () => {
    const snap = buildSnapshot({ now, source: 'relay', relay: { running: true }, channels: [], warm: view });
    const text = renderStatus(snap, now);
    expect(text).toContain('Warm agents: 2 of 4 live');
    expect(text).toMatch(/claude \(pid 42\), up 10m 0s, idle 1m 30s, 225 MB/);
    expect(text).toMatch(/\* +pi \(pid \?\), up 5s, busy/);
    expect(text).toContain('gemini runs cold: its warm start failed (exit: unknown flag --acp');
    expect(text).not.toContain('4915112345678');
  });
});
