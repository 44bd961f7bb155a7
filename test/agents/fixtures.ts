// Loads the real CLI captures in fixtures/agents/ (see its README) and replays them as spawn results.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { linesOf } from '../../src/runner/lines.js';
import type { SpawnResult } from '../../src/runner/spawn.js';

export { linesOf };

export interface Capture {
  name: string;
  kind: string;
  argv: string[];
  stdout: string;
  stderr: string;
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  cli_version: string;
}

export const FIXTURES_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'agents');

export function loadCaptures(): Capture[] {
  const out: Capture[] = [];
  for (const kind of readdirSync(FIXTURES_DIR, { withFileTypes: true })) {
    if (!kind.isDirectory()) continue;
    for (const f of readdirSync(join(FIXTURES_DIR, kind.name)).sort()) {
      if (!f.endsWith('.json')) continue;
      const data = JSON.parse(readFileSync(join(FIXTURES_DIR, kind.name, f), 'utf8')) as Omit<
        Capture,
        'name' | 'kind'
      >;
      out.push({ ...data, name: f.replace(/\.json$/, ''), kind: kind.name });
    }
  }
  return out;
}

export function spawnResultOf(c: Capture, timeoutMs = 10_000): SpawnResult {
  const fin = {
    stdoutLines: linesOf(c.stdout),
    stdout: c.stdout,
    stderr: c.stderr,
    stdoutTruncated: false,
    stderrTruncated: false,
    stdoutBytes: Buffer.byteLength(c.stdout),
    exitCode: c.exit_code,
    signal: c.signal,
    durationMs: 1,
  };
  return c.timed_out ? { type: 'timeout', timeoutMs, ...fin } : { type: 'exited', ...fin };
}
