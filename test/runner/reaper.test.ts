// A warm agent must not outlive the relay, even when the relay gets SIGKILL and runs no exit hook.
// A stand-in relay (test/fixtures/warm-relay.mjs, over dist/) starts an agent that ignores TERM
// and end of input and has a helper child; the relay is killed with SIGKILL, and the agent and its
// helper must be gone. Needs `npm run build`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REAPER_SCRIPT } from '../../src/runner/reaper.js';
import { newRunMark, RUN_MARK_ENV } from '../../src/runner/run-mark.js';

const relayScript = join(import.meta.dirname, '..', 'fixtures', 'warm-relay.mjs');
const strays: number[] = [];

afterAll(() => {
  // Only what this test started, by pid (the control case leaves its agent group behind on purpose).
  for (const pid of strays) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** True while the process exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

interface Pids {
  relay: number;
  reaper?: number;
  agent: number;
  helper: number;
}

async function startRelay(env: Record<string, string> = {}): Promise<Pids> {
  const relay = spawn(process.execPath, [relayScript], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
  });
  return new Promise((resolve, reject) => {
    relay.stdout.once('data', (d: Buffer) => resolve(JSON.parse(d.toString()) as Pids));
    relay.once('exit', (code) => reject(new Error(`relay exited ${code}`)));
  });
}

async function settled(check: () => boolean, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('reaper', () => {
  it('kills a warm agent and its helpers when the relay is killed with SIGKILL', async () => {
    const p = await startRelay();
    strays.push(p.agent);
    expect(alive(p.agent) && alive(p.helper) && alive(p.reaper as number)).toBe(true);
    process.kill(p.relay, 'SIGKILL');
    expect(await settled(() => !alive(p.agent) && !alive(p.helper))).toBe(true);
    // The watchdog ends too once its work is done.
    expect(await settled(() => !alive(p.reaper as number))).toBe(true);
  });

  it('without it, the same agent outlives a killed relay (the case it exists for)', async () => {
    const p = await startRelay({ REAPER: 'off' });
    strays.push(p.agent);
    process.kill(p.relay, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    expect(alive(p.agent)).toBe(true);
  });

  it.each([
    ['a listed group is killed at end of input', (g: number) => [`+${g}`], false],
    ['a forgotten group is left alone', (g: number) => [`+${g}`, `-${g}`], true],
    ['lines that are not "+digits" are ignored', (g: number) => [`+${g}x`, `+ ${g}`, `${g}`, `+-${g}`], true],
  ])('%s', async (_name, lines, survives) => {
    const group = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    const g = group.pid as number;
    strays.push(g);
    const reaper = spawn('/bin/sh', ['-c', REAPER_SCRIPT], { stdio: ['pipe', 'ignore', 'inherit'] });
    const exited = new Promise((r) => reaper.once('exit', r));
    reaper.stdin.end(`${lines(g).join('\n')}\n`);
    await exited;
    await settled(() => !alive(g), survives ? 300 : 10_000);
    expect(alive(g)).toBe(survives);
  });

  // A process that left the group (its own session here, as setsid makes it) is found by its mark.
  it.each([
    ['a process carrying a listed mark is killed at end of input', (m: string) => [`+${m}`], false],
    ['a forgotten mark is left alone', (m: string) => [`+${m}`, `-${m}`], true],
    ['another mark is left alone', () => [`+${newRunMark()}`], true],
    [
      'lines that are not a whole mark are ignored',
      (m: string) => [`+${m.slice(0, -1)}`, `+${m}x`, `+${m.toUpperCase()}`, `+${m.slice(0, 8)}`],
      true,
    ],
  ])('%s', async (_name, lines, survives) => {
    const mark = newRunMark();
    const marked = spawn('sleep', ['300'], {
      detached: true,
      stdio: 'ignore',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', [RUN_MARK_ENV]: mark },
    });
    const pid = marked.pid as number;
    strays.push(pid);
    const reaper = spawn('/bin/sh', ['-c', REAPER_SCRIPT], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    reaper.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise((r) => reaper.once('exit', r));
    reaper.stdin.end(`${lines(mark).join('\n')}\n`);
    await exited;
    await settled(() => !alive(pid), survives ? 300 : 10_000);
    expect(alive(pid)).toBe(survives);
    // Its scan meets processes that ended meanwhile or that it may not read: it says nothing of them.
    expect(stderr).toBe('');
  });
});
