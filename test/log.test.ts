import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  createLogger,
  maskCredentials,
  maskId,
  registerCredential,
  registerSecret,
  registerSecretEnv,
  scrub,
} from '../src/log.js';

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

describe('secret redaction', () => {
  it('masks registered values in messages, fields and errors at every level', () => {
    registerSecret('tok-registered-123456');
    const { lines, log } = capture();
    log.trace({ detail: 'x tok-registered-123456 y' }, 'msg tok-registered-123456');
    log.error({ err: new Error('failed with tok-registered-123456') }, 'boom');
    expect(lines.join('')).not.toContain('tok-registered-123456');
    expect(lines.join('')).toContain('[redacted]');
  });

  it('masks values of secret-looking environment variables', () => {
    registerSecretEnv({ ANTHROPIC_API_KEY: 'anthropic-value-987654', PATH: '/usr/bin:/bin' });
    expect(scrub('key=anthropic-value-987654 path=/usr/bin:/bin')).toBe('key=[redacted] path=/usr/bin:/bin');
  });

  it('masks credentials, and only credentials, in text bound for a chat', () => {
    registerCredential('twilio-token-abcdef123');
    registerSecretEnv({ OPENAI_API_KEY: 'openai-value-24680', HOME: '/home/someone' });
    // An agent.env value such as a mode or a path stays out of the log but may appear in a reply.
    registerSecret('production');
    registerCredential('short7x');
    const text =
      'token twilio-token-abcdef123, key openai-value-24680, in production, short7x, sk-abcdefghijklmnop1234';
    expect(maskCredentials(text)).toBe(
      'token [redacted], key [redacted], in production, short7x, sk-abcdefghijklmnop1234',
    );
    expect(scrub(text)).not.toContain('production');
  });

  it.each([
    ['sk-ant-api03-abcdefghijklmnopqrstuvwxyz', '[redacted]'],
    ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc', 'Authorization: [redacted]'],
    ['Basic QUNhYmM6c2VjcmV0MTIz', '[redacted]'],
    ['plain words stay', 'plain words stay'],
  ])('masks credential shapes: %s', (input, expected) => {
    expect(scrub(input)).toBe(expected);
  });

  it('redacts well-known field names', () => {
    const { lines, log } = capture();
    log.info({ authToken: 'abc', headers: { authorization: 'zzz' } }, 'req');
    const rec = JSON.parse(lines[0] as string);
    expect(rec.authToken).toBe('[redacted]');
    expect(rec.headers.authorization).toBe('[redacted]');
  });
});

describe('maskId', () => {
  it.each([
    ['whatsapp:+15551234567', 'whatsapp:…4567'],
    ['+15551234567', '…4567'],
    ['console:local', 'console:…ocal'],
    ['ab', '…ab'],
  ])('%s → %s', (id, masked) => expect(maskId(id)).toBe(masked));
});
