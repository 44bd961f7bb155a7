// The slack config section (zod, strict), the plug-in's pure answers (chat ids, config problems,
// secrets), and doctor's auth.test against the fake Slack.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { channelRedactPaths, checkChatKey } from '../../../src/channels/registry.js';
import { slackPlugin } from '../../../src/channels/slack/plugin.js';
import { resolvePaths } from '../../../src/config/paths.js';
import { redactConfig } from '../../../src/config/redact.js';
import { configSchema } from '../../../src/config/schema.js';
import { createLogger, registerRedactPaths } from '../../../src/log.js';
import { APP_TOKEN, BOT_TOKEN, type FakeSlack, SIGNING_SECRET, startFakeSlack, TEAM } from './fake-slack.js';

const issues = (raw: unknown) => {
  const r = configSchema.safeParse(raw);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};

describe('slack config', () => {
  it('is off by default, Socket Mode, one session per conversation', () => {
    expect(configSchema.parse({}).slack).toMatchObject({
      enabled: false,
      mode: 'socket',
      threadSessions: false,
      allowFrom: [],
      channels: [],
    });
  });

  it.each([
    [{ allowFrom: ['@alice'] }, 'slack.allowFrom.0', /Slack user id like U0123ABCD.*never a display name/],
    [{ channels: ['#general'] }, 'slack.channels.0', /channel id like C0123ABCD.*never a #name/],
    [{ channels: ['D0123ABCD'] }, 'slack.channels.0', /channel id/],
    [{ botToken: 'xoxp-user-token-0000000000' }, 'slack.botToken', /xoxb-/],
    [{ appToken: 'xoxb-0000000000-0000000000' }, 'slack.appToken', /xapp-/],
    [{ teamId: 'acme' }, 'slack.teamId', /workspace id like T0123ABCD/],
    [{ mode: 'rtm' }, 'slack.mode', /socket|http/],
    [{ apiUrl: 'http://slack.example.com/api/' }, 'slack.apiUrl', /must be https/],
    [{ mentionPatterns: ['('] }, 'slack.mentionPatterns.0', /regular expression/],
    [{ tokne: 'x' }, 'slack', /tokne/],
    [{ http: { port: 8789, prefix: '/x' } }, 'slack.http', /prefix/],
  ])('refuses %j at its key with a clear message', (section, path, message) => {
    const found = issues({ slack: section });
    expect(found.map((i) => i.path)).toContain(path);
    expect(found.find((i) => i.path === path)?.message).toMatch(message);
  });

  it('says at its key which token the mode needs (config check and relay refuse alike)', () => {
    const cfg = (s: Record<string, unknown>) => configSchema.parse({ slack: { enabled: true, ...s } });
    expect(slackPlugin.configProblems!(cfg({}), {})).toEqual([
      { path: ['slack', 'botToken'], message: expect.stringMatching(/no bot token.*SLACK_BOT_TOKEN/) },
      { path: ['slack', 'appToken'], message: expect.stringMatching(/Socket Mode needs an app-level token/) },
    ]);
    expect(
      slackPlugin.configProblems!(cfg({}), { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN }),
    ).toEqual([]);
    expect(slackPlugin.configProblems!(cfg({ mode: 'http' }), { SLACK_BOT_TOKEN: BOT_TOKEN })).toEqual([
      { path: ['slack', 'signingSecret'], message: expect.stringMatching(/signing secret/) },
    ]);
    expect(
      slackPlugin.configProblems!(cfg({ mode: 'http' }), {
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
      }),
    ).toEqual([]);
    expect(slackPlugin.configProblems!(configSchema.parse({}), {})).toEqual([]);
  });

  it('masks the three secrets in config print and in every log line', () => {
    const c = configSchema.parse({
      slack: { botToken: BOT_TOKEN, appToken: APP_TOKEN, signingSecret: SIGNING_SECRET },
    });
    const printed = JSON.stringify(redactConfig(c));
    for (const s of [BOT_TOKEN, APP_TOKEN, SIGNING_SECRET]) expect(printed).not.toContain(s);
    expect(slackPlugin.secrets!(c, {})).toEqual(
      expect.arrayContaining([BOT_TOKEN, APP_TOKEN, SIGNING_SECRET]),
    );
    // As the CLI's context does at start-up: every registered channel's paths.
    registerRedactPaths(channelRedactPaths());
    let out = '';
    const log = createLogger({
      level: 'debug',
      destination: new Writable({
        write: (chunk, _e, cb) => {
          out += String(chunk);
          cb();
        },
      }),
    });
    log.info(
      {
        appToken: APP_TOKEN,
        cfg: { signingSecret: SIGNING_SECRET },
        headers: { 'x-slack-signature': 'v0=abc123' },
      },
      'x',
    );
    expect(out).not.toContain(APP_TOKEN);
    expect(out).not.toContain(SIGNING_SECRET);
    expect(out).not.toContain('v0=abc123');
  });

  it('plugin: conversation ids, threads, and what kind of chat each is', () => {
    expect(slackPlugin.isChatId('D0123ABCD')).toBe(true);
    expect(slackPlugin.isChatId('C0123ABCD:1700000000.000100')).toBe(true);
    expect(slackPlugin.isChatId('#general')).toBe(false);
    expect(slackPlugin.isChatId('U0123ABCD')).toBe(false);
    expect(slackPlugin.chatKind('D0123ABCD')).toBe('direct');
    expect(slackPlugin.chatKind('D0123ABCD:1700000000.000100')).toBe('direct');
    expect(slackPlugin.chatKind('C0123ABCD')).toBe('group');
    expect(slackPlugin.chatKind('G0123ABCD')).toBe('group');
    expect(checkChatKey('slack:#general')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not a Slack chat id/),
    });
    expect(checkChatKey('slack:C0123ABCD')).toMatchObject({ ok: true, key: 'slack:C0123ABCD' });
  });
});

describe('slack doctor: auth.test with the bot token', () => {
  let fake: FakeSlack | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });
  const run = (section: Record<string, unknown>, env: NodeJS.ProcessEnv, online = true) =>
    slackPlugin.doctor!({
      config: configSchema.parse({
        slack: { enabled: true, apiUrl: fake!.apiUrl, allowFrom: ['U0OWNER01'], ...section },
      }),
      paths: resolvePaths({ AGENTWIRE_HOME: '/nonexistent' }),
      env,
      online,
      timeoutMs: 5000,
    });

  it('a good token: ok, naming the bot and workspace; a revoked one fails without printing it', async () => {
    fake = await startFakeSlack();
    expect(await run({}, { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN })).toEqual([
      { check: 'slack', status: 'ok', message: `bot @agentbot answers in workspace ${TEAM} (auth.test)` },
    ]);
    expect(fake.callsOf('auth.test')).toHaveLength(1);
    const wrong = 'xoxb-9999999999-9999999999-NotTheRightOne';
    const checks = await run({}, { SLACK_BOT_TOKEN: wrong, SLACK_APP_TOKEN: APP_TOKEN });
    expect(checks).toMatchObject([
      {
        check: 'slack',
        status: 'fail',
        message: expect.stringMatching(/rejected the bot token \(invalid_auth/),
      },
    ]);
    expect(JSON.stringify(checks)).not.toContain(wrong);
    expect(
      await run({ teamId: 'T0OTHER01' }, { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN }),
    ).toMatchObject([{ status: 'fail', message: expect.stringMatching(/not slack.teamId/) }]);
  });

  it('missing tokens fail offline too, with the fix', async () => {
    fake = await startFakeSlack();
    const checks = await run({}, {}, false);
    expect(checks.map((c) => c.status)).toEqual(['fail', 'fail']);
    expect(checks[0]?.fix).toMatch(/docs\/slack.md/);
    expect(fake.calls).toHaveLength(0);
  });
});
