// cli/signals.ts in a process of its own (the built dist/): signals are sent to that process for
// real, since what went wrong lives below JavaScript. Node reads a caught signal on a later loop
// turn, for the listeners there were when it came; the relay once swapped its start-up listener for
// another, and a SIGTERM that came just before the swap was lost (the relay kept running).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './helpers.js';

const SIGNALS = join(ROOT, 'dist/cli/signals.js');

beforeAll(() => {
  expect(existsSync(SIGNALS), 'build first: npm run build').toBe(true);
});

/**
 * Runs `body` in a child with `held` = holdSignals() from dist; resolves with its stdout lines and
 * how it ended. A handler that never hears its signal prints "lost" after 5 s and exits 3.
 */
function run(body: string): Promise<{ lines: string[]; code: number | null; signal: string | null }> {
  const script = `
    const { holdSignals } = await import(${JSON.stringify(pathToFileURL(SIGNALS).href)});
    const held = holdSignals();
    const say = (s) => process.stdout.write(s + '\\n');
    setTimeout(() => { say('lost'); process.exit(3); }, 5000).unref();
    ${body}
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  return new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({ lines: out.split('\n').filter(Boolean), code, signal })),
  );
}

describe('holdSignals (a process of its own)', () => {
  it('a signal that came just before the handler was given is handled, not lost', async () => {
    // The signal is caught now and read by Node only on the next turn, after handle() below.
    const r = await run(`
      setImmediate(() => {
        process.kill(process.pid, 'SIGTERM');
        held.handle((s) => { say('handled ' + s); process.exit(0); });
      });
      setInterval(() => {}, 1000);
    `);
    expect(r.lines).toEqual(['handled SIGTERM']);
    expect(r.code).toBe(0);
  });

  it('signals held before the handler reach it in the order they came, then later ones too', async () => {
    const r = await run(`
      process.kill(process.pid, 'SIGINT');
      process.kill(process.pid, 'SIGTERM');
      let n = 0;
      // Given later than the two were read (whenever that was, they are held until now).
      setTimeout(() => {
        held.handle((s) => {
          say('handled ' + s);
          if (++n === 3) process.exit(0);
        });
        process.kill(process.pid, 'SIGTERM');
      }, 20);
      setInterval(() => {}, 1000);
    `);
    expect(r.lines).toEqual(['handled SIGINT', 'handled SIGTERM', 'handled SIGTERM']);
  });

  it('after close, SIGTERM ends the process as by default', async () => {
    const r = await run(`
      held.close();
      say('closed');
      setImmediate(() => process.kill(process.pid, 'SIGTERM'));
      setInterval(() => {}, 1000);
    `);
    expect(r.lines).toEqual(['closed']);
    expect(r.signal).toBe('SIGTERM');
  });
});
