// The baseline every relay figure is measured against: the same fake CLI started the way the claude
// spec starts it (same argv, prompt on stdin, its own process group), with no relay around it, its
// output read whole.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { FAKE_CLI } from './relay-proc.mjs';

export function spawnOnce(prompt, env = { PATH: process.env.PATH }) {
  return new Promise((resolve, reject) => {
    const args = [
      FAKE_CLI,
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--session-id',
      randomUUID(),
    ];
    const child = spawn(process.execPath, args, { env, detached: true });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 && out.includes('"result"') ? resolve() : reject(new Error(`fake CLI exit ${code}`)),
    );
    child.stdin.end(prompt);
  });
}

/** `n` runs, `concurrency` at a time; the wall time in ms. */
export async function bareRuns(n, concurrency, prompt = (i) => `message ${i}`) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await spawnOnce(prompt(next++));
    }),
  );
  return performance.now() - t0;
}
