// The burst bench's two baselines: each burst row must meet the one-at-a-time chat of its CLI and
// the same-shape chat of its CLI, messages per sender and queue mode (never another CLI's, another
// queue's or another size's), and the ratios must be per turn and per message as labelled; a
// baseline is not compared with itself. Pure: raw lines as the bench prints them.
import { describe, expect, it } from 'vitest';
import { type BurstRaw, baselinesFor, compare, shapeOf, tableOf } from '../../bench/lib/burst-table.mjs';

const raw = (
  kind: string,
  label: string,
  whileBusy: string,
  runs: number,
  messages: number,
  cpu: number,
  shape?: [number, number],
): BurstRaw => ({
  kind,
  label,
  mode: label.startsWith('cold') ? 'cold' : 'warm',
  whileBusy,
  ...(shape && { senders: shape[0], per: shape[1] }),
  runs,
  messages,
  agentCpuMs: cpu,
  wallMs: 1000,
  starts: 1,
  peakRssMiB: 400,
  load: '1.00 1.00 1.00 → 2.00 2.00 2.00',
  ackP50: 3,
  ackP99: 30,
});

// One claude process start ≈ 900 ms, a warm turn ≈ 50 ms.
const one = raw('claude', 'one warm chat × 5', 'followup', 5, 5, 1150, [1, 5]);
const shapeCollect4 = raw('claude', 'warm collect 1×4', 'collect', 2, 4, 1000, [1, 4]);
const shapeFollowup4 = raw('claude', 'warm followup 1×4', 'followup', 4, 4, 1100, [1, 4]);
const shapeCollect5 = raw('claude', 'warm collect 1×5', 'collect', 2, 5, 1000, [1, 5]);
const codexOne = raw('codex', 'one warm chat × 5', 'followup', 5, 5, 500, [1, 5]);
const codexShape = raw('codex', 'warm collect 1×4', 'collect', 2, 4, 300, [1, 4]);
const burst = raw('claude', 'warm collect 10×4', 'collect', 14, 40, 14 * 700, [10, 4]);
const cold = raw('claude', 'cold collect 10×4', 'collect', 14, 40, 14 * 800, [10, 4]);
const raws = [codexOne, codexShape, one, shapeCollect5, shapeFollowup4, shapeCollect4, burst, cold];

describe('burst baselines', () => {
  it.each([
    ['a warm collect burst', burst, one, shapeCollect4],
    ['a cold burst (same shape, warm baseline)', cold, one, shapeCollect4],
    ['the same-shape chat: only the one-at-a-time one', shapeCollect4, one, undefined],
    ['the one-at-a-time chat: none', one, undefined, undefined],
    ['another CLI: its own', codexShape, codexOne, undefined],
  ])('%s', (_, r, wantOne, wantShape) => {
    const b = baselinesFor(r, raws);
    expect(b.one).toBe(wantOne);
    expect(b.shape).toBe(wantShape);
  });

  it('per turn and per message against each baseline', () => {
    const c = compare(burst, raws);
    expect(c.perTurn).toBe(700);
    expect(c.perMessage).toBe(245);
    expect(c.turnsPerChat).toBeCloseTo(1.4);
    expect(c.xOne).toBeCloseTo(700 / 230);
    expect(c.xShape).toBeCloseTo(700 / 500);
    expect(c.xShapePerMessage).toBeCloseTo(245 / 250);
  });

  it('reads the shape from labels in output written before the raw lines carried it', () => {
    expect(shapeOf({ ...burst, senders: undefined, per: undefined })).toEqual({ senders: 10, per: 4 });
    expect(shapeOf({ ...one, senders: undefined, per: undefined })).toEqual({ senders: 1, per: 5 });
  });

  it('prints one table row per relay, with both ratios', () => {
    const text = raws.map((r) => `burst-raw ${JSON.stringify(r)}`).join('\n');
    const lines = tableOf(text).trim().split('\n');
    expect(lines).toHaveLength(2 + raws.length);
    const row = lines.find((l) => l.startsWith('| claude | warm | 10×4 | collect |'));
    expect(row).toContain('| 14 (1.4) |');
    expect(row).toContain('| 700 ms | 3.0× | 1.4× | 245 ms (1.0×) |');
    expect(lines.find((l) => l.includes('| one chat × 5 | one at a time |'))).toContain('| — | — |');
  });
});
