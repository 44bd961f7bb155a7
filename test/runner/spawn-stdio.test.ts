// The long-lived child beside spawnProcess: started by the same rules, handed back with live pipes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RUN_MARK_ENV } from '../../src/runner/run-mark.js';
import { startStdioChild } from '../../src/runner/spawn-stdio.js';
import { waitFor } from '../e2e/helpers.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('aw-stdio-');
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const strays: number[] = [];
afterAll(() => {
  for (const pid of strays) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function started(args: string[], extra: Record<string, string> = {}) {
  const s = await startStdioChild({ file: process.execPath, args, env: { ...env, ...extra }, cwd: dir });
  if (s.type !== 'started') throw new Error(s.type);
  strays.push(s.child.pid);
  return s.child;
}

async function eventually(ok: () => boolean, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!ok() && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  return ok();
}

describe('startStdioChild', () => {
  it('talks over stdin/stdout, sees only the explicit environment, and leads its own group', async () => {
    const c = await started(
      [
        '-e',
        'process.stdin.on("data", (d) => process.stdout.write(JSON.stringify({ got: String(d), env: Object.keys(process.env).sort(), pgid: require("node:child_process").execSync("ps -o pgid= -p " + process.pid).toString().trim() }) + "\\n"))',
      ],
      { AW_ONE: '1', CLAUDECODE: '1' },
    );
    const line = new Promise<string>((r) => c.stdout.once('data', (d: Buffer) => r(d.toString())));
    c.stdin.write('ping\n');
    const out = JSON.parse(await line);
    expect(out.got).toBe('ping\n');
    expect(out.env).toContain('AW_ONE');
    // Nested-agent variables are dropped as in spawnProcess.
    expect(out.env).not.toContain('CLAUDECODE');
    expect(Number(out.pgid)).toBe(c.pid);
    c.stdin.end();
    expect(await c.exited).toEqual({ exitCode: 0, signal: null });
  });

  it('stop() sends TERM, then KILL to a child that ignores it', async () => {
    const c = await started([
      '-e',
      'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); console.log("up")',
    ]);
    await new Promise((r) => c.stdout.once('data', r));
    expect(await c.stop(200)).toEqual({ exitCode: null, signal: 'SIGKILL' });
  });

  it('kills what the leader left in its group when the leader exits', async () => {
    const c = await started([
      '-e',
      'const h = require("node:child_process").spawn("sleep", ["300"], { stdio: "ignore" }); console.log(h.pid); setTimeout(() => process.exit(2), 100)',
    ]);
    const helper = Number(
      await new Promise<string>((r) => c.stdout.once('data', (d: Buffer) => r(d.toString()))),
    );
    expect(await c.exited).toEqual({ exitCode: 2, signal: null });
    expect(await eventually(() => !alive(helper))).toBe(true);
  });

  it('keeps only the tail of stderr', async () => {
    const s = await startStdioChild({
      file: process.execPath,
      args: ['-e', 'process.stderr.write("x".repeat(5000) + "END")'],
      env,
      maxStderrBytes: 100,
    });
    if (s.type !== 'started') throw new Error(s.type);
    await s.child.exited;
    await eventually(() => s.child.stderrTail().endsWith('END'));
    expect(s.child.stderrTail()).toHaveLength(100);
  });

  it.each([
    ['a missing program', { file: 'aw-no-such-program-xyz', cwd: dir }, 'not_found'],
    ['a missing working folder', { file: process.execPath, cwd: join(dir, 'nope') }, 'spawn_failed'],
    ['a NUL byte in argv', { file: process.execPath, cwd: dir, args: ['a\0b'] }, 'spawn_failed'],
  ])('%s is a value, not a throw', async (_name, o, type) => {
    const s = await startStdioChild({ args: [], env, ...o });
    expect(s.type).toBe(type);
  });
});

describe.skipIf(process.platform !== 'linux')(
  'startStdioChild and what its child moved out of the group',
  () => {
    it('carries a mark of its own, and ends a setsid, TERM-ignoring grandchild when it stops', async () => {
      const sleeper = `process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);`;
      const agent = `
      const c = require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(sleeper)}], { detached: true, stdio: 'ignore' });
      console.log(c.pid);
      process.stdin.on('data', () => {});
    `;
      const s = await startStdioChild({
        file: process.execPath,
        args: ['-e', agent],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', [RUN_MARK_ENV]: 'inherited-from-an-outer-run' },
      });
      if (s.type !== 'started') throw new Error(s.type);
      const pid = await new Promise<number>((resolve) =>
        s.child.stdout.once('data', (d) => resolve(Number(String(d)))),
      );
      try {
        // A fresh mark, set over any inherited one, and the grandchild carries it.
        expect(s.child.mark).not.toBe('inherited-from-an-outer-run');
        expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).toContain(`${RUN_MARK_ENV}=${s.child.mark}\0`);
        await s.child.stop(200);
        expect(await waitFor(() => !alive(pid), 5000)).toBe(true);
      } finally {
        if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
    });
  },
);
