// The config fingerprint of the process registry (config/fingerprint.ts) and the refusal built on it
// (cli/ownership.ts): which settings must agree between processes on one database, which may differ,
// and that a difference is named without showing any value.
import { describe, expect, it } from 'vitest';
import { configConflict, conflictSentence } from '../../src/cli/ownership.js';
import { configFingerprint, fingerprintDifference } from '../../src/config/fingerprint.js';
import { configSchema } from '../../src/config/schema.js';
import type { ProcessInfo } from '../../src/store/ownership.js';

const base = {
  twilio: { enabled: true, from: '+15550000000', allowFrom: ['+15551234567'], authToken: 'token-one-aaaa' },
  store: { engine: 'postgres', url: 'postgresql://a:pw1@db-one/agentwire' },
};
const fp = (over: Record<string, unknown> = {}) => {
  const raw = structuredClone({ ...base, ...over }) as Record<string, unknown>;
  return configFingerprint(configSchema.parse(raw));
};

describe('fingerprintDifference', () => {
  const cases: [string, Record<string, unknown>, string[]][] = [
    ['the same config', {}, []],
    ['the busy policy', { queue: { whileBusy: 'followup' } }, ['queue.whileBusy']],
    ['who may talk', { twilio: { ...base.twilio, allowFrom: ['+15559999999'] } }, ['twilio.allowFrom']],
    ['the agent', { agent: { kind: 'codex' } }, ['agent.kind']],
    [
      'the heartbeat',
      { heartbeat: { everyMinutes: 37, target: 'twilio:+15551234567' } },
      ['heartbeat.everyMinutes', 'heartbeat.target'],
    ],
    // This machine's own settings: capacity, where it listens and logs, its address of the database.
    ['the run cap (per process)', { queue: { maxConcurrentRuns: 9 } }, []],
    ['the warm pool (per process)', { agents: { warm: { maxProcesses: 9 } } }, []],
    ['the log', { log: { level: 'debug' } }, []],
    ['the web console', { console: { enabled: true, port: 9999 } }, []],
    ['the webhook port', { twilio: { ...base.twilio, webhook: { port: 9000, host: '127.0.0.1' } } }, []],
    ['a Slack events server port', { slack: { http: { port: 9100, host: '127.0.0.1' } } }, []],
    [
      'the database address',
      { store: { engine: 'postgres', url: 'postgresql://a:pw1@10.0.0.5/agentwire' } },
      [],
    ],
    // Secrets are masked before hashing: never compared, never revealed.
    ['a token', { twilio: { ...base.twilio, authToken: 'token-two-bbbb' } }, []],
  ];
  it.each(cases)('%s', (_name, over, keys) => {
    expect(fingerprintDifference(fp(), fp(over))).toEqual(keys);
  });

  it('holds no value of the config, only hashes', () => {
    const f = fp({ heartbeat: { everyMinutes: 37, target: 'twilio:+15551234567', prompt: 'zebra-quux' } });
    expect(f).not.toContain('15551234567');
    expect(f).not.toContain('zebra');
    expect(f).not.toContain('pw1');
    expect(f).toMatch(
      /^([a-zA-Z]+(\.[a-zA-Z0-9*]+)?=[0-9a-f]{10};)*[a-zA-Z]+(\.[a-zA-Z0-9*]+)?=[0-9a-f]{10}$/,
    );
  });

  it("an older agentwire's single hash differs as a whole", () => {
    expect(fingerprintDifference(fp(), '0123456789abcdef')).toEqual(['*']);
  });
});

describe('configConflict', () => {
  const proc = (id: string, fingerprint: string, lastSeen: number): ProcessInfo => ({
    id,
    host: 'host-b',
    pid: 42,
    role: 'relay',
    startedAt: 0,
    lastSeen,
    fingerprint,
    schemaVersion: 14,
  });
  const mine = proc('me', fp(), 1000);
  const other = fp({ queue: { whileBusy: 'followup' } });

  it('names the first live process on a different config and the settings', () => {
    const c = configConflict(mine, [mine, proc('b', other, 900)], 1000, 200);
    expect(c?.keys).toEqual(['queue.whileBusy']);
    expect(conflictSentence(c!)).toBe(
      'Cannot start: the relay on host-b (pid 42) uses this database with a different config ' +
        '(queue.whileBusy differ); every process on one database must run the same config (docs/scale-out.md).',
    );
  });

  it('ignores itself, processes on the same config, and rows not seen for longer than the bound', () => {
    expect(configConflict(mine, [mine, proc('b', fp(), 1000), proc('c', other, 700)], 1000, 200)).toBe(
      undefined,
    );
  });
});
