// The console's usage view: tokens and cost of the last runs, and the sums per
// day and label, rendered on the server from the same snapshot the JSON endpoint serves.
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../src/ops/status/snapshot.js';
import { usageRows } from '../../src/web/client.js';
import { renderPage } from '../../src/web/page.js';

const T = Date.parse('2026-11-26T08:00:00Z');
const sums = { runsWithUsage: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, runsWithCost: 0 };

const snap = buildSnapshot({
  now: T,
  source: 'relay',
  relay: { running: true, pid: 1 },
  channels: [],
  runs: [
    {
      at: T,
      chat: 'whatsapp:+15551234567',
      agent: 'claude',
      durationMs: 1200,
      outcome: 'ok',
      label: 'heartbeat',
      usage: { inputTokens: 12345, outputTokens: 67, costUsd: 0.0125 },
    },
  ],
  usage: [
    {
      day: '2026-11-26',
      label: 'heartbeat',
      ...sums,
      runs: 4,
      runsWithUsage: 4,
      inputTokens: 40000,
      outputTokens: 200,
      costUsd: 0.05,
      runsWithCost: 4,
    },
    {
      day: '2026-11-26',
      label: 'user',
      ...sums,
      runs: 1,
      runsWithUsage: 1,
      inputTokens: 500,
      outputTokens: 80,
    },
    { day: '2026-11-25', label: 'schedule:digest', ...sums, runs: 2 },
  ],
});

describe('usage in the web console', () => {
  it('groups the days with a total and a row per label, newest first', () => {
    expect(usageRows(snap)).toEqual([
      ['2026-11-26', 'all', '5', '40,500 / 280', '$0.0500'],
      ['', 'heartbeat', '4', '40,000 / 200', '$0.0500'],
      ['', 'message', '1', '500 / 80', ''],
      ['2026-11-25', 'all', '2', '', ''],
      ['', 'schedule digest', '2', '', ''],
    ]);
  });

  it('shows the tokens and cost of each last run and the usage table', () => {
    const html = renderPage({ snapshot: snap, qr: null }, 'n', 1000);
    expect(html).toContain('<td>12,345 / 67</td><td>$0.0125</td>');
    expect(html).toContain('<h2>Usage per day</h2>');
    expect(html).toContain('<td>2026-11-26</td><td>all</td><td>5</td><td>40,500 / 280</td><td>$0.0500</td>');
  });

  it('says so when nothing was recorded', () => {
    const empty = buildSnapshot({ now: T, source: 'store', relay: { running: false }, channels: [] });
    expect(renderPage({ snapshot: empty, qr: null }, 'n', 1000)).toContain(
      '<tr class="empty"><td colspan="5">No runs recorded yet.</td></tr>',
    );
  });
});
