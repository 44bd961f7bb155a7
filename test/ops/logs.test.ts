import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadContext } from '../../src/cli/context.js';
import { resolvePaths } from '../../src/config/paths.js';
import { configSchema } from '../../src/config/schema.js';
import { createLogger, registerSecret } from '../../src/log.js';
import { LOG_FILE_NAME, RotatingFileStream } from '../../src/log-rotate.js';
import { formatLogLine, levelOf } from '../../src/ops/logs/format.js';
import { followLines, followStart, tailLines } from '../../src/ops/logs/read.js';
import { relayLogSetup } from '../../src/ops/logs/setup.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from './wait.js';

const tmp = () => tempDir('aw-logs-');
const mode = (p: string) => statSync(p).mode & 0o777;

describe('RotatingFileStream', () => {
  it('rotates by size, keeps `keep` old files, never splits a line, and uses private modes', () => {
    const dir = join(tmp(), 'logs');
    const s = new RotatingFileStream({ dir, maxBytes: 100, keep: 2 });
    const lines = Array.from(
      { length: 20 },
      (_, i) => `{"n":${String(i).padStart(2, '0')},"pad":"xxxxxxxxxxxxxxx"}\n`,
    );
    for (const l of lines) s.write(l);
    s.end();
    expect(readdirSync(dir).sort()).toEqual([LOG_FILE_NAME, `${LOG_FILE_NAME}.1`, `${LOG_FILE_NAME}.2`]);
    expect(mode(dir)).toBe(0o700);
    for (const f of readdirSync(dir)) {
      expect(mode(join(dir, f))).toBe(0o600);
      const text = readFileSync(join(dir, f), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(100);
      expect(text.endsWith('\n')).toBe(true);
    }
    // The newest lines survive, in order, across the current file and its predecessors.
    const kept = tailLines(join(dir, LOG_FILE_NAME), 100);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(lines.slice(lines.length - kept.length).map((l) => l.trimEnd()));
    expect(kept.length).toBeLessThan(20);
  });

  it('tightens the mode of an existing log file and folder', () => {
    const dir = join(tmp(), 'logs');
    const s0 = new RotatingFileStream({ dir, maxBytes: 1000, keep: 1 });
    s0.end();
    const file = join(dir, LOG_FILE_NAME);
    chmodSync(file, 0o644);
    chmodSync(dir, 0o755);
    const s = new RotatingFileStream({ dir, maxBytes: 1000, keep: 1 });
    s.end();
    expect(mode(file)).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
  });
});

describe('createLogger with a file', () => {
  it('writes JSON lines to the rotated file with secrets redacted', () => {
    const dir = join(tmp(), 'logs');
    registerSecret('hunter2-very-secret');
    const log = createLogger({
      level: 'info',
      file: { dir, maxBytes: 1_000_000, keep: 2 },
      stderrLevel: 'silent',
    });
    log.child({ subsystem: 'twilio' }).warn({ detail: 'token hunter2-very-secret seen' }, 'signature failed');
    log.debug('not at info');
    log.flush();
    const text = readFileSync(join(dir, LOG_FILE_NAME), 'utf8');
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(1);
    const rec = JSON.parse(lines[0] as string);
    expect(rec).toMatchObject({ level: 40, subsystem: 'twilio', msg: 'signature failed' });
    expect(text).not.toContain('hunter2-very-secret');
    expect(mode(join(dir, LOG_FILE_NAME))).toBe(0o600);
  });
});

describe('formatLogLine', () => {
  it.each([
    [
      '{"level":30,"time":0,"subsystem":"whatsapp","msg":"connected","chat":"whatsapp:…4567"}',
      '1970-01-01T00:00:00.000Z INFO  whatsapp   connected chat=whatsapp:…4567',
    ],
    [
      '{"level":50,"time":1000,"module":"queue","msg":"run failed","ms":12,"err":{"type":"Error","message":"boom"}}',
      '1970-01-01T00:00:01.000Z ERROR queue      run failed ms=12 err="Error: boom"',
    ],
    [
      '{"level":40,"time":0,"msg":"no subsystem","note":"two words"}',
      '1970-01-01T00:00:00.000Z WARN  -          no subsystem note="two words"',
    ],
    [
      '{"level":30,"time":0,"sub":"whatsapp","channel":"whatsapp","msg":"m"}',
      '1970-01-01T00:00:00.000Z INFO  whatsapp   m channel=whatsapp',
    ],
    ['Error: crash at top level', 'Error: crash at top level'],
    ['[1,2]', '[1,2]'],
  ])('%s', (line, expected) => {
    expect(formatLogLine(line)).toBe(expected);
  });

  it('reads the level of a pino line', () => {
    expect(levelOf('{"level":40,"msg":"x"}')).toBe(40);
    expect(levelOf('plain')).toBeUndefined();
  });
});

describe('followLines', () => {
  it('sees every line appended after the start, across several rotations between polls, in order', async () => {
    const dir = join(tmp(), 'logs');
    const s = new RotatingFileStream({ dir, maxBytes: 60, keep: 3 });
    s.write('{"old":true}\n');
    const file = join(dir, LOG_FILE_NAME);
    const start = followStart(file);
    const seen: string[] = [];
    const stop = new AbortController();
    const done = followLines(file, start, (l) => seen.push(l), stop.signal, 20);
    const expected: string[] = [];
    for (let i = 0; i < 12; i++) {
      const line = `{"i":${i},"pad":"yyyyyyyyyy"}`;
      expected.push(line);
      s.write(`${line}\n`);
      if (i % 3 === 0) await new Promise((r) => setTimeout(r, 30));
    }
    await waitFor(() => seen.length >= expected.length);
    stop.abort();
    await done;
    s.end();
    expect(seen).toEqual(expected);
    expect(readdirSync(dir).length).toBeGreaterThan(2);
  });
});

describe('the relay logger (loadContext with logFile)', () => {
  it('writes the rotated file at the configured level and keeps stderr to warnings under a service', () => {
    const home = tmp();
    writeFileSync(join(home, 'agentwire.json5'), '{log: {level: "debug", maxFileMb: 1, keepFiles: 3}}');
    const setup = relayLogSetup(
      resolvePaths({ AGENTWIRE_HOME: home }),
      configSchema.parse({ log: { level: 'debug', maxFileMb: 1, keepFiles: 3 } }),
      {},
      false,
    );
    expect(setup).toEqual({
      level: 'debug',
      file: { dir: join(home, 'logs'), maxBytes: 1024 * 1024, keep: 3 },
      stderrLevel: 'warn',
    });
    expect(
      relayLogSetup(resolvePaths({ AGENTWIRE_HOME: home }), configSchema.parse({}), {}, true).stderrLevel,
    ).toBe('info');
    const ctx = loadContext({}, { AGENTWIRE_HOME: home }, { logFile: 'relay' });
    ctx.log.child({ sub: 'queue' }).debug({ chat: 'whatsapp:…4567' }, 'lane idle');
    ctx.log.flush();
    const line = readFileSync(join(home, 'logs', LOG_FILE_NAME), 'utf8').trim();
    expect(formatLogLine(line)).toMatch(/^\S+Z DEBUG queue {6}lane idle chat=whatsapp:…4567$/);
  });

  it('shows a person at a terminal readable lines on stderr, the file keeps JSON', () => {
    const home = tmp();
    const paths = resolvePaths({ AGENTWIRE_HOME: home });
    const setup = relayLogSetup(paths, configSchema.parse({}), {}, true);
    expect(setup.stderrFormat).toBe(formatLogLine);
    expect(relayLogSetup(paths, configSchema.parse({}), {}, false).stderrFormat).toBeUndefined();
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const log = createLogger(setup);
      log.child({ sub: 'relay' }).info({ channels: ['twilio'] }, 'relay started');
      log.flush();
    } finally {
      spy.mockRestore();
    }
    expect(written.join('')).toMatch(/^\S+Z INFO {2}relay {6}relay started channels=\["twilio"\]\n$/);
    const file = readFileSync(join(home, 'logs', LOG_FILE_NAME), 'utf8').trim();
    expect(JSON.parse(file)).toMatchObject({ level: 30, sub: 'relay', msg: 'relay started' });
  });
});
