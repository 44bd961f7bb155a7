// Which tasks an agent may schedule: exactly one timing, parsed like a config schedule, no shorter
// than the configured interval, never in the past.
import { describe, expect, it } from 'vitest';
import { checkTask } from '../../src/tools/task-policy.js';

const NOW = Date.parse('2026-07-01T08:00:00Z');
const MIN = 5 * 60_000;

describe('checkTask', () => {
  it.each([
    [{ every: '1h' }, true, 'every 1h'],
    [{ every: '5m' }, true, 'every 5m'],
    [{ every: '4m' }, false, 'too short'],
    [{ every: 'often' }, false, 'every:'],
    [{ cron: '0 9 * * 1-5', timeZone: 'Europe/Paris' }, true, 'cron 0 9 * * 1-5 (Europe/Paris)'],
    [{ cron: '*/5 * * * *' }, true, 'cron */5'],
    [{ cron: '* * * * *' }, false, 'fires too often'],
    [{ cron: '0,1 9 * * *' }, false, 'fires too often'],
    [{ cron: 'not cron' }, false, 'cron: invalid'],
    [{ at: '2026-07-01T09:00:00Z' }, true, 'at 2026-07-01T09:00:00Z'],
    [{ at: '2026-07-01T07:59:00Z' }, false, 'in the past'],
    [{ at: 'tomorrow' }, false, 'at:'],
    [{ every: '1h', timeZone: 'Mars/Olympus' }, false, 'timeZone'],
    [{}, false, 'exactly one of cron, every or at (got none)'],
    [{ every: '1h', at: '2026-07-01T09:00:00Z' }, false, 'got every, at'],
  ])('%j → ok %s (%s)', (timing, ok, text) => {
    const r = checkTask({ prompt: 'p', ...timing }, MIN, NOW);
    expect(r.ok).toBe(ok);
    expect(r.ok ? r.timing : r.error).toContain(text);
  });

  it('refuses an empty prompt, and gives the first run', () => {
    expect(checkTask({ prompt: '  ', every: '1h' }, MIN, NOW)).toMatchObject({ ok: false });
    expect(checkTask({ prompt: 'p', every: '1h' }, MIN, NOW)).toMatchObject({ firstAt: NOW + 3_600_000 });
  });
});
