// `agentwire logs` as a user runs it (the built binary) over real rotated files.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RotatingFileStream } from '../../src/log-rotate.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from './wait.js';

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname;
const line = (i: number, level = 30) =>
  `${JSON.stringify({ level, time: Date.UTC(2026, 0, 1, 0, 0, i), sub: 'queue', msg: `event ${i}` })}\n`;

function home(): string {
  return tempDir('aw-logcli-');
}
const run = (h: string, args: string[]) =>
  spawnSync(process.execPath, [bin, 'logs', ...args], {
    env: { AGENTWIRE_HOME: h, PATH: process.env.PATH ?? '' },
    encoding: 'utf8',
  });

let children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.pid) process.kill(c.pid, 'SIGTERM');
  children = [];
});

describe('agentwire logs (built binary)', () => {
  it('prints the last N lines across rotated files, human-readably, oldest first', () => {
    const h = home();
    const s = new RotatingFileStream({ dir: join(h, 'logs'), maxBytes: 200, keep: 5 });
    for (let i = 0; i < 10; i++) s.write(line(i, i === 7 ? 40 : 30));
    s.end();
    const r = run(h, ['-n', '4']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      '2026-01-01T00:00:06.000Z INFO  queue      event 6',
      '2026-01-01T00:00:07.000Z WARN  queue      event 7',
      '2026-01-01T00:00:08.000Z INFO  queue      event 8',
      '2026-01-01T00:00:09.000Z INFO  queue      event 9',
    ]);
    expect(run(h, ['--level', 'warn']).stdout.trim()).toBe(
      '2026-01-01T00:00:07.000Z WARN  queue      event 7',
    );
    expect(JSON.parse(run(h, ['-n', '1', '--json']).stdout)).toMatchObject({ msg: 'event 9' });
    // -n 0 prints nothing and does not claim the log is empty; a level nothing reaches says so.
    const none = run(h, ['-n', '0']);
    expect([none.status, none.stdout, none.stderr]).toEqual([0, '', '']);
    expect(run(h, ['--level', 'error']).stderr).toContain('no log lines at error or above');
  });

  it('says so when there is no log yet, and refuses a bad -n', () => {
    const h = home();
    const r = run(h, []);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('no log lines yet');
    expect(run(h, ['-n', 'many']).status).toBe(2);
  });

  it('-f follows new lines across rotations until stopped', async () => {
    const h = home();
    const s = new RotatingFileStream({ dir: join(h, 'logs'), maxBytes: 250, keep: 10 });
    s.write(line(0));
    const child = spawn(process.execPath, [bin, 'logs', '-f', '-n', '1'], {
      env: { AGENTWIRE_HOME: h, PATH: process.env.PATH ?? '' },
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await waitFor(() => out.includes('event 0'), 'the first line');
    for (let i = 1; i <= 12; i++) s.write(line(i));
    await waitFor(() => out.includes('event 12'), 'the line after several rotations');
    s.end();
    const events = out
      .trim()
      .split('\n')
      .map((l) => l.replace(/^.* event /, ''));
    expect(events).toEqual(Array.from({ length: 13 }, (_, i) => String(i)));
    const exited = new Promise((r) => child.on('close', r));
    process.kill(child.pid as number, 'SIGTERM');
    await exited;
    // SIGTERM ends following cleanly.
    expect(child.exitCode).toBe(0);
  });
});
