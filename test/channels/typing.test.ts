// The one typing indicator of the channels: shown again every interval while a run lasts, ended
// with `stop` where the channel has one (WhatsApp's `paused`), never failing the run.
import { describe, expect, it } from 'vitest';
import { type Timers, Typing, type TypingSignal } from '../../src/channels/typing.js';

function rig(withStop: boolean, failing = false) {
  const sent: string[] = [];
  const ticks = new Map<number, () => void>();
  let n = 0;
  const timers: Timers = {
    setInterval: (fn) => {
      ticks.set(++n, fn);
      return n;
    },
    clearInterval: (h) => ticks.delete(h as number),
  };
  const note = (what: string) => async () => {
    sent.push(what);
    if (failing) throw new Error('offline');
  };
  const signal: TypingSignal = {
    show: (c) => note(`show ${c}`)(),
    ...(withStop && { stop: (c: string) => note(`stop ${c}`)() }),
  };
  const errors: unknown[] = [];
  const typing = new Typing(signal, 5000, timers, (e) => errors.push(e));
  const tick = () => {
    for (const fn of ticks.values()) fn();
  };
  return { typing, sent, tick, ticks, errors };
}

describe('Typing', () => {
  it.each([
    ['with stop (WhatsApp)', true, ['show a', 'show a', 'stop a']],
    ['without (Telegram: it fades)', false, ['show a', 'show a']],
  ])('%s: shown, refreshed, ended', async (_name, withStop, want) => {
    const r = rig(withStop);
    await r.typing.set('a', true);
    r.tick();
    await r.typing.set('a', false);
    r.tick(); // no refresh once off
    expect(r.sent).toEqual(want);
    expect(r.typing.isActive('a')).toBe(false);
  });

  it('clear ends every chat still showing it', async () => {
    const r = rig(true);
    await r.typing.set('a', true);
    await r.typing.set('b', true);
    await r.typing.clear();
    expect(r.sent.filter((s) => s.startsWith('stop')).sort()).toEqual(['stop a', 'stop b']);
    expect(r.ticks.size).toBe(0);
  });

  it('a failing send is reported, never thrown', async () => {
    const r = rig(true, true);
    await expect(r.typing.set('a', true)).resolves.toBeUndefined();
    await expect(r.typing.set('a', false)).resolves.toBeUndefined();
    expect(r.errors).toHaveLength(2);
  });
});
