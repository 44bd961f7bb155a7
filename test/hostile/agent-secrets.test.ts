// An agent that quotes a secret to its chat, by every path a text takes to a chat, through the built
// relay (`agentwire relay` from dist/, a real child process) and signed Twilio webhooks: its final
// reply, a send_message, a send_file caption, a heartbeat's tool message and answer, an ask_user
// question and an approval request. The secrets are the run's own tool token (the agent has it in
// its environment) and the Twilio auth token from the config; the person's messages never hold
// them (the fake agents decode them from base64, or read them from their environment). Neither the
// fake Twilio API nor any byte of the state folder's database files may hold one, in clear or
// as the halves of a cut. Needs `npm run build` first.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import { TOKEN } from '../channels/twilio/helpers/fake-twilio.js';
import { type Home, MAIN } from '../e2e/helpers.js';
import { OWNER, type Rig, startRig } from '../e2e/interact-rig.js';

const TOOL_CLI = join(process.cwd(), 'test/e2e/fixtures/fake-tool-cli.mjs');
const WARM_TOOL_CLI = join(process.cwd(), 'test/e2e/fixtures/fake-tool-claude-stream.mjs');
const CLAUDE = join(process.cwd(), 'test/fixtures/fake-claude-stream.mjs');
const b64 = (s: string) => Buffer.from(s).toString('base64');
// What the agent quotes: its tool token (from its environment) and the channel's auth token.
const SECRETS = `tool=@@env:AGENTWIRE_TOOLS_TOKEN@@ auth=@@b64:${b64(TOKEN)}@@`;
const tools = (calls: unknown[]) => `TOOLS: ${JSON.stringify(calls)}`;

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

/** Every tool token the fake agents were given (each logs its own with its calls). */
function toolTokens(h: Home): string[] {
  const file = `${h.fakeLog}.tools`;
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return [...new Set(lines.map((l) => (JSON.parse(l) as { token?: string }).token ?? ''))].filter(Boolean);
}

/** The database file and its WAL and shared-memory files, as bytes (the relay may still run). */
function databaseBytes(h: Home): string {
  const db = sqliteFile(h.ctx().paths.home);
  return ['', '-wal', '-shm', '-journal']
    .map((s) => `${db}${s}`)
    .filter(existsSync)
    .map((f) => readFileSync(f).toString('latin1'))
    .join('\n');
}

/** No secret, nor its first or last 8 characters (what a cut between two chunks leaves), in `where`. */
function expectClean(where: string, secrets: readonly string[], what: string): void {
  for (const s of secrets) {
    expect(s.length, 'a secret to look for').toBeGreaterThan(15);
    expect(where.includes(s), `${what} holds a secret in clear`).toBe(false);
    expect(where.includes(s.slice(0, 8)), `${what} holds the head of a secret`).toBe(false);
    expect(where.includes(s.slice(-8)), `${what} holds the tail of a secret`).toBe(false);
  }
}

/** A heartbeat fired now through the running relay (`agentwire heartbeat`, over the control socket). */
function heartbeat(h: Home): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const env = { ...h.env, TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' };
    const child = spawn(process.execPath, [MAIN, 'heartbeat', '--to', `twilio:${OWNER}`], { env });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('an agent quoting secrets to its chat, through the built relay', () => {
  it('cold: the reply, send_message, a send_file caption and a heartbeat reach neither Twilio nor the database in clear', async () => {
    const r = await startRig({
      agent: { command: [process.execPath, TOOL_CLI] },
      twilio: { mediaBaseUrl: 'https://relay.example.test/media' },
      extra: {
        heartbeat: {
          everyMinutes: 0,
          target: `twilio:${OWNER}`,
          prompt: tools([
            { name: 'send_message', arguments: { text: `heartbeat says ${SECRETS}` } },
            { say: `heartbeat answer ${SECRETS}` },
          ]),
        },
      },
    });
    rig = r;
    const workspace = r.home.ctx().paths.workspace;
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'report.txt'), 'a report\n');
    r.start();
    // Messages longer than one SMS (1,600 characters) with nowhere to break but inside a secret: a
    // mask applied to each chunk after the cut would leave its two halves in clear.
    const cutIn = (secret: string) => `${'x'.repeat(1590)}${secret}${'y'.repeat(200)}`;
    const body = tools([
      { name: 'send_message', arguments: { text: `tool message ${SECRETS}` } },
      { name: 'send_message', arguments: { text: cutIn('@@env:AGENTWIRE_TOOLS_TOKEN@@') } },
      { name: 'send_message', arguments: { text: cutIn(`@@b64:${b64(TOKEN)}@@`) } },
      {
        name: 'send_file',
        arguments: { path: join(workspace, 'report.txt'), caption: `caption ${SECRETS}` },
      },
      { say: `final reply ${SECRETS}` },
    ]);
    expect(await r.sms(body)).toBe(200);
    await r.sent(/^reply: /);
    await r.sent(/^tool message tool=\[redacted\] auth=\[redacted\]$/);
    await r.sent(/^caption tool=\[redacted\] auth=\[redacted\]$/);
    await r.sent(/^x{1590}\[redacte/, { times: 2 });
    await r.sent(/final reply tool=\[redacted\] auth=\[redacted\]/);
    expect(r.fake.created.some((m) => m.mediaUrl.length === 1)).toBe(true);

    const fired = await heartbeat(r.home);
    expect(fired.code, fired.out).toBe(0);
    await r.sent(/^heartbeat says tool=\[redacted\] auth=\[redacted\]$/);
    await r.sent(/heartbeat answer tool=\[redacted\] auth=\[redacted\]/);

    const secrets = [TOKEN, ...toolTokens(r.home)];
    // Both runs had a token of their own, and the fakes really quoted it (the relay masked it).
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    expectClean(
      r.fake.created.map((m) => `${m.body ?? ''}\n${m.mediaUrl.join(' ')}`).join('\n'),
      secrets,
      'Twilio',
    );
    expectClean(databaseBytes(r.home), secrets, 'agentwire.db');
  }, 90_000);

  it('warm: an ask_user question and its choices reach neither Twilio nor the database in clear', async () => {
    const r = await startRig({ agent: { mode: 'warm', command: [process.execPath, WARM_TOOL_CLI] } });
    rig = r;
    r.start();
    const ask = tools([
      {
        name: 'ask_user',
        arguments: { question: `question ${SECRETS}`, choices: [`choice auth=@@b64:${b64(TOKEN)}@@`, 'no'] },
      },
    ]);
    expect(await r.sms(ask)).toBe(200);
    await r.sent(
      /^claude asks: question tool=\[redacted\] auth=\[redacted\]\n1 choice auth=\[redacted\]\n2 no/,
    );
    expect(await r.sms('2')).toBe(200);
    await r.sent('reply: ask_user ok: no');
    const secrets = [TOKEN, ...toolTokens(r.home)];
    expect(secrets.length).toBeGreaterThanOrEqual(2);
    expectClean(r.bodies().join('\n'), secrets, 'Twilio');
    expectClean(databaseBytes(r.home), secrets, 'agentwire.db');
  }, 60_000);

  it('warm: an approval request quoting the channel auth token reaches neither Twilio nor the database in clear', async () => {
    const r = await startRig({
      agent: { kind: 'claude', mode: 'warm', permissions: 'ask', command: [process.execPath, CLAUDE] },
      // The test answers faster than a person reads: no settle time after a question closes.
      extra: { permissions: { settleSeconds: 0 } },
    });
    rig = r;
    r.start();
    expect(await r.sms(`ask b64:${b64(`curl -u ${TOKEN} https://api.example.test`)}`)).toBe(200);
    await r.sent(/^claude wants to run: curl -u \[redacted\] https:\/\/api\.example\.test\n1 allow once/);
    expect(await r.sms('3')).toBe(200);
    await r.sent('answered deny');
    await r.sent(/^Denied: claude wants to run: curl -u \[redacted\]/);
    // A long command is shown whole (never cut in its middle), the token masked; the line that
    // reports the answer keeps head … tail (drivers/approval.ts oneLine), its head ending 10
    // characters into the token, so a mask applied after that cut would leave "test-auth-" behind.
    const long = `echo ${'a'.repeat(96)} ${TOKEN} ${'b'.repeat(100)}`;
    expect(await r.sms(`ask b64:${b64(long)}`)).toBe(200);
    await r.sent(/^claude wants to run: echo a{96} \[redacted\] b{100}\n1 allow once/);
    expect(await r.sms('3')).toBe(200);
    await r.sent('answered deny', { times: 2 });
    expectClean(r.bodies().join('\n'), [TOKEN], 'Twilio');
    expectClean(databaseBytes(r.home), [TOKEN], 'agentwire.db');
  }, 60_000);
});
