// The pre-check gate, with real child processes: small shell scripts that fail, print nothing,
// print something, or hang past the time limit.
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { HOUR, MIN, OWNER, sched, useHarness } from './schedule-harness.js';

const h = useHarness();

describe('pre-check', () => {
  let calls: string;
  const script = (name: string, body: string): string[] => {
    const path = join(h.tmp.dir, `${name}.sh`);
    writeFileSync(path, `#!/bin/sh\necho run >> "${calls}"\n${body}\n`);
    chmodSync(path, 0o755);
    return [path];
  };
  const checkRuns = () =>
    existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean).length : 0;
  beforeEach(() => {
    calls = join(h.tmp.dir, 'calls.log');
  });

  it('exit 1: the agent is not woken', async () => {
    const s = h.start([sched({ id: 'mail', every: '15m', check: script('fail', 'echo "3 new"; exit 1') })]);
    await h.clock.advance(15 * MIN);
    await s.whenIdle();
    expect(checkRuns()).toBe(1);
    expect(h.runner.runs).toHaveLength(0);
    expect(h.runner.delivered).toHaveLength(0);
    expect(s.status().schedules[0]).toMatchObject({ lastOutcome: 'check_quiet' });
  });

  it('exit 0 printing nothing (or only blank lines): the agent is not woken', async () => {
    const s = h.start([
      sched({ id: 'mail', every: '15m', check: script('quiet', 'printf "\\n  \\n"; exit 0') }),
    ]);
    await h.clock.advance(15 * MIN);
    await s.whenIdle();
    expect(checkRuns()).toBe(1);
    expect(h.runner.runs).toHaveLength(0);
  });

  it('exit 0 printing something: the agent is woken with the output', async () => {
    const s = h.start([
      sched({
        id: 'mail',
        every: '15m',
        prompt: 'Summarise these.',
        check: script('found', 'echo "2 new mails from Ann"'),
      }),
    ]);
    await h.clock.advance(15 * MIN);
    await s.whenIdle();
    expect(h.runner.runs.map((r) => r.prompt)).toEqual([
      "Summarise these.\n\nOutput of this schedule's check command:\n```\n2 new mails from Ann\n```",
    ]);
    expect(h.runner.delivered).toHaveLength(1);
  });

  it('a check that hangs past its timeout is killed, not woken on, and reported once', async () => {
    const pidFile = join(h.tmp.dir, 'hang.pid');
    const argv = script('hang', `echo $$ > "${pidFile}"\necho partial\nexec sleep 30`);
    const s = h.start([sched({ id: 'mail', every: '15m', check: argv, checkTimeoutSeconds: 1 })]);
    await h.clock.advance(15 * MIN);
    await s.whenIdle();
    expect(h.runner.runs).toHaveLength(0);
    expect(h.runner.delivered.map((d) => d.text)).toEqual([
      'Scheduled job "mail": its check command took longer than 1 s and was stopped.',
    ]);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow();
    // The next tick runs the check again; the streak is not reported twice.
    await h.clock.advance(15 * MIN);
    await s.whenIdle();
    expect(checkRuns()).toBe(2);
    expect(h.runner.delivered).toHaveLength(1);
  });

  it('a check that is not installed is reported', async () => {
    const s = h.start([sched({ id: 'mail', every: '15m', check: ['agentwire-no-such-check-command'] })]);
    await h.clock.advance(15 * MIN);
    await s.whenIdle();
    expect(h.runner.runs).toHaveLength(0);
    expect(h.runner.delivered.map((d) => d.text)).toEqual([
      'Scheduled job "mail": its check command could not run (agentwire-no-such-check-command was not found).',
    ]);
  });

  it('a busy retry reuses the check output instead of running the check again', async () => {
    h.runner.sessions.add(OWNER);
    h.runner.busy.add(OWNER);
    const s = h.start([sched({ id: 'mail', every: '1h', check: script('found', 'echo "1 new mail"') })]);
    await h.clock.advance(1 * HOUR);
    await s.whenIdle();
    h.runner.busy.delete(OWNER);
    await h.clock.advance(1 * MIN);
    await s.whenIdle();
    expect(checkRuns()).toBe(1);
    expect(h.runner.runs).toHaveLength(1);
    expect(h.runner.runs[0]?.prompt).toContain('1 new mail');
  });
});
