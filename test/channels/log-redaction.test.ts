// The logger's field redaction is built from what the channel plug-ins declare (plugin.logRedactPaths),
// so src/log.ts names no channel and a new channel's secret fields are masked without an
// edit there. The relay's own logger (loadContext) still masks every path log.ts listed before.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { channelRedactPaths } from '../../src/channels/registry.js';
import { loadContext } from '../../src/cli/context.js';
import { createLogger, registerRedactPaths } from '../../src/log.js';
import { LOG_FILE_NAME } from '../../src/log-rotate.js';
import { Loft, pigeonPlugin } from './fixtures/pigeon/plugin.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, log: createLogger({ level: 'trace', destination }) };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('log redaction paths come from the channel plug-ins', () => {
  it("a new plug-in's declared fields and headers are redacted, log.ts untouched", () => {
    const line = {
      ringCode: 'ring-AAAA',
      loft: { ringCode: 'ring-BBBB' },
      headers: { 'x-pigeon-ring': 'ring-CCCC' },
    };
    // Before its paths are registered, nothing in log.ts knows the pigeon's fields.
    const before = capture();
    before.log.info(line, 'pigeon request');
    expect(before.lines.join('')).toContain('ring-AAAA');

    registerRedactPaths(channelRedactPaths([pigeonPlugin(new Loft())]));
    const after = capture();
    after.log.info(line, 'pigeon request');
    const rec = JSON.parse(after.lines[0] as string);
    expect(rec.ringCode).toBe('[redacted]');
    expect(rec.loft.ringCode).toBe('[redacted]');
    expect(rec.headers['x-pigeon-ring']).toBe('[redacted]');
    expect(after.lines.join('')).not.toMatch(/ring-[ABC]{4}/);
  });

  it("the relay's logger masks every field log.ts masked before the paths moved to the plug-ins", () => {
    const home = mkdtempSync(join(tmpdir(), 'aw-redact-'));
    dirs.push(home);
    const ctx = loadContext({}, { AGENTWIRE_HOME: home }, { logFile: 'relay' });
    // Each path the old list in log.ts had (Telegram's and Twilio's among them), with a value no
    // registered secret matches: only the path can mask it.
    const v = (n: number) => `plain-value-${n}`;
    ctx.log.info(
      {
        authToken: v(1),
        apiSecret: v(2),
        token: v(3),
        password: v(4),
        secret: v(5),
        botToken: v(6),
        secretToken: v(7),
        authorization: v(8),
        a: { authToken: v(9), apiSecret: v(10), token: v(11), botToken: v(12) },
        b: { secretToken: v(13), authorization: v(14) },
        headers: {
          authorization: v(15),
          'x-twilio-signature': v(16),
          'x-telegram-bot-api-secret-token': v(17),
        },
      },
      'a request',
    );
    ctx.log.flush();
    const text = readFileSync(join(home, 'logs', LOG_FILE_NAME), 'utf8');
    expect(text).toContain('a request');
    expect(text).not.toMatch(/plain-value-\d+/);
    expect(JSON.parse(text.trim().split('\n').at(-1) as string).headers).toEqual({
      authorization: '[redacted]',
      'x-twilio-signature': '[redacted]',
      'x-telegram-bot-api-secret-token': '[redacted]',
    });
  });

  it('a path pino cannot compile is refused when registered, naming it', () => {
    expect(() => registerRedactPaths(['headers["unclosed'])).toThrow(
      /bad log redaction path "headers\[\\"unclosed"/,
    );
    // and later loggers still build
    expect(() => capture()).not.toThrow();
  });
});
