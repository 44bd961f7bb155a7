// Secrets never leak: a real `agentwire relay` process with API keys and Twilio tokens in its
// environment and config, logging at debug level to its real log file, a fake claude that echoes
// every key to stdout and stderr and fails, and a webhook whose signature fails on a URL carrying a
// token in its query. No log line, stderr line, `agentwire status` output (text or --json), web
// console page, /healthz or API answer, the chat's /status answer, and no message sent to the user
// contains any of the values.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
  TOKEN,
} from '../channels/twilio/helpers/fake-twilio.js';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { freePort, type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from '../e2e/helpers.js';
import { FAULT_CLI } from '../faults/rig.js';

// Recognisable, and deliberately not shaped like any known key format (sk-…, AIza…): only the
// registration of environment and config values can mask them.
const ENV_SECRETS = {
  ANTHROPIC_API_KEY: 'zzANTHROPICzz7f3a9c1e5b',
  OPENAI_API_KEY: 'zzOPENAIzz2d4e6f8a0c',
  GEMINI_API_KEY: 'zzGEMINIzz9b8a7c6d5e',
  TWILIO_AUTH_TOKEN: 'zzTWILIOENVzz1a2b3c4d',
};
const QUERY_SECRET = 'zzQUERYzz5e6f7a8b9c';
const SECRETS = [...Object.values(ENV_SECRETS), TOKEN, QUERY_SECRET];

let fake: FakeTwilio;
let home: Home;
let relay: Proc;
let webhook: string;
let consoleBase: string;
const seen: Record<string, string> = {};

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

beforeAll(async () => {
  fake = await startFakeTwilio();
  const port = await freePort();
  home = makeHome({
    agent: {
      command: [process.execPath, FAULT_CLI],
      // How a user hands other keys to their agent: "${VAR}" from the relay's environment.
      env: { OPENAI_API_KEY: '${OPENAI_API_KEY}', GEMINI_API_KEY: '${GEMINI_API_KEY}' },
    },
    twilio: fakeTwilioSection(fake, port),
    console: { enabled: true, host: '127.0.0.1', port: 0 },
  });
  // makeHome wrote the config with FAKE_LOG in agent.env; keep it beside the "${VAR}" entries.
  const raw = JSON.parse(readFileSync(home.configFile, 'utf8'));
  raw.agent.env = { ...raw.agent.env, FAKE_LOG: home.fakeLog };
  writeFileSync(home.configFile, JSON.stringify(raw));
  const env = { ...home.env, ...ENV_SECRETS, AGENTWIRE_LOG_LEVEL: 'debug' };
  relay = spawnNode([MAIN, 'relay'], env);
  const up = await waitFor(() => /Web console: (\S+)/.test(relay.stderr()), 20_000);
  expect(up, `relay did not start: ${relay.stderr()}`).toBe(true);
  consoleBase = new URL(/Web console: (\S+)/.exec(relay.stderr())?.[1] ?? '').origin;
  webhook = `http://127.0.0.1:${port}/twilio/inbound`;

  // A run whose CLI echoes every key and fails.
  expect((await twilioPost(webhook, smsParams({ Body: 'please echosecrets' }))).status).toBe(200);
  expect(await waitFor(() => fake.created.length === 1, 20_000)).toBe(true);
  // A run whose CLI succeeds and puts every key in its reply, and one in an attachment reference.
  expect(
    (await twilioPost(webhook, smsParams({ MessageSid: `SM${'6'.repeat(32)}`, Body: 'please tellsecrets' })))
      .status,
  ).toBe(200);
  expect(await waitFor(() => fake.created.length === 2, 20_000)).toBe(true);
  // A forged request to a URL with a token in its query.
  const forged = await twilioPost(
    `${webhook}?token=${QUERY_SECRET}`,
    smsParams({ MessageSid: `SM${'9'.repeat(32)}` }),
    {
      signature: 'bm90IGEgc2lnbmF0dXJl',
    },
  );
  expect(forged.status).toBe(403);

  // The chat's own status command, answered through the same REST server as any reply.
  expect(
    (await twilioPost(webhook, smsParams({ MessageSid: `SM${'7'.repeat(32)}`, Body: '/status' }))).status,
  ).toBe(200);
  expect(await waitFor(() => fake.created.length === 3, 20_000)).toBe(true);
  seen.chatStatus = fake.created[2]?.body ?? '';

  seen.status = (await cli(['status', '--json'], env)).out;
  seen.statusText = (await cli(['status'], env)).out;
  const token = readFileSync(join(home.dir, 'console.token'), 'utf8').trim();
  seen.healthz = await (await fetch(`${consoleBase}/healthz`)).text();
  const auth = { headers: { authorization: `Bearer ${token}` } };
  const page = await fetch(`${consoleBase}/`, auth);
  expect(page.status).toBe(200);
  seen.page = await page.text();
  seen.api = await (await fetch(`${consoleBase}/api/status`, auth)).text();
  seen.replies = JSON.stringify(fake.created.slice(0, 2).map((m) => m.body));

  relay.child.kill('SIGTERM');
  await relay.exit;
  // What the relay printed (stderr carries warnings and the console line; stdout is usually empty).
  seen.output = relay.stdout() + relay.stderr();
  const logs = join(home.dir, 'logs');
  seen.logs = readdirSync(logs)
    .map((f) => readFileSync(join(logs, f), 'utf8'))
    .join('');
}, 60_000);

afterAll(async () => {
  if (relay && relay.child.exitCode === null) relay.child.kill('SIGKILL');
  await fake?.close();
  home?.cleanup();
});

describe('secrets never leak', () => {
  it('the CLI really had the keys, printed them, and failed', () => {
    const end = home.events().find((e) => e.ev === 'end') as { secrets?: string[] } | undefined;
    // The relay's own Twilio token is never handed to the agent; the keys it needs are, and the
    // run's own tool token (docs/tools.md), good for this run's chat only and refused after it.
    expect(end?.secrets).toEqual([
      'AGENTWIRE_TOOLS_TOKEN',
      'ANTHROPIC_API_KEY',
      'GEMINI_API_KEY',
      'OPENAI_API_KEY',
    ]);
    // The failure reached the log at debug level, with the CLI's own line masked.
    const finished = (seen.logs ?? '')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'run finished');
    expect(finished).toMatchObject({ outcome: 'exit' });
    expect(String(finished?.detail)).toContain('[redacted]');
    expect(seen.logs).toContain('"level":20');
  });

  it.each(['logs', 'output', 'status', 'statusText', 'chatStatus', 'healthz', 'page', 'api', 'replies'])(
    'no secret in %s',
    (where) => {
      const text = seen[where] ?? '';
      expect(text.length).toBeGreaterThan(0);
      for (const s of SECRETS) expect(text, `${where} contains ${s}`).not.toContain(s);
      // The run's tool token, which the CLI printed too: its shape, whatever its value was.
      const m = /.{0,120}[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{43}.{0,20}/.exec(text);
      expect(JSON.stringify(m?.[0]), `${where} contains a tool token`).toBeUndefined();
    },
  );

  it('what was checked is the real thing: status from the running relay, the page behind its token', () => {
    expect(JSON.parse(seen.status ?? '')).toMatchObject({ source: 'relay', relay: { running: true } });
    expect(seen.statusText).toMatch(/^relay: running/);
    expect(seen.chatStatus).toMatch(/^Agent: claude\n/);
    expect(seen.page).toMatch(/^<!doctype html>/i);
    expect(seen.page).not.toContain('needs its token');
    expect(JSON.parse(seen.api ?? '')).toMatchObject({ snapshot: { source: 'relay' } });
    expect(JSON.parse(seen.healthz ?? '')).toMatchObject({ status: expect.any(String) });
  });

  it('the user is told the run failed, in one short sentence', () => {
    expect(JSON.parse(seen.replies ?? '[]')[0]).toBe('Claude Code failed (exit code 1).');
  });

  it('a reply that quotes the keys reaches the user with each one masked', () => {
    const reply = String(JSON.parse(seen.replies ?? '[]')[1]);
    expect(reply).toMatch(/^Here is my environment:\n/);
    for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY'])
      expect(reply).toContain(`${name}=[redacted]`);
    // The attachment reference was masked before it was checked, so its refusal notice is too.
    expect(reply).toContain('Attachment not sent');
  });

  it('the forged request was logged without its query', () => {
    expect(seen.logs).toContain('twilio: webhook signature rejected');
  });

  it('log files are private (0600)', () => {
    const logs = join(home.dir, 'logs');
    const files = readdirSync(logs);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(statSync(join(logs, f)).mode & 0o777, f).toBe(0o600);
  });
});
