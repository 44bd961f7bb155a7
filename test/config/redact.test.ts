// `config print` masks every key SECRET_PATHS lists, from that one list (src/config/redact.ts names no
// channel section), and leaves everything else as it was.
import { describe, expect, it } from 'vitest';
import { redactConfig } from '../../src/config/redact.js';
import { configSchema, SECRET_PATHS } from '../../src/config/schema.js';

const config = configSchema.parse({
  agent: { env: { API_KEY: 'agent-env-value', MODE: 'production' } },
  agents: {
    codex: { env: { OPENAI_API_KEY: 'codex-env-value' } },
    list: [{ name: 'work', kind: 'claude', env: { ANTHROPIC_API_KEY: 'named-env-value' } }],
  },
  store: { engine: 'postgres', url: 'postgresql://agentwire:db-password-value@db.example.com/agentwire' },
  twilio: { authToken: 'twilio-auth-value', apiSecret: 'twilio-api-secret-value', accountSid: 'AC123' },
  telegram: {
    botToken: '123456:telegram-token-value',
    webhook: { url: 'https://b.example.com/x', secretToken: 'telegram-webhook-secret' },
  },
  slack: {
    botToken: 'xoxb-0000000000-slack-bot-value',
    appToken: 'xapp-1-A00-slack-app-value',
    signingSecret: 'slacksigningsecretvalue0',
  },
  discord: { botToken: 'discord-token-value' },
  hooks: { ci: { secret: 'hook-secret-value-0123', chat: 'telegram:1', prompt: 'p' } },
  tools: {
    servers: {
      gh: { command: ['gh-mcp'], env: { GITHUB_TOKEN: 'gh-env-value' } },
      web: { url: 'https://mcp.example.com/', headers: { Authorization: 'Bearer web-header-value' } },
    },
    scripts: { deploy: { run: ['deploy'], description: 'd', env: { DEPLOY_KEY: 'script-env-value' } } },
  },
});

describe('redactConfig', () => {
  const printed = redactConfig(config) as typeof config;

  it.each([
    ['store.url', printed.store.url],
    ['twilio.authToken', printed.twilio.authToken],
    ['twilio.apiSecret', printed.twilio.apiSecret],
    ['telegram.botToken', printed.telegram.botToken],
    ['telegram.webhook.secretToken', printed.telegram.webhook?.secretToken],
    ['slack.botToken', printed.slack.botToken],
    ['slack.appToken', printed.slack.appToken],
    ['slack.signingSecret', printed.slack.signingSecret],
    ['discord.botToken', printed.discord.botToken],
    ['agent.env.API_KEY', printed.agent.env.API_KEY],
    ['agent.env.MODE', printed.agent.env.MODE],
    ['agents.codex.env.OPENAI_API_KEY', printed.agents.codex?.env?.OPENAI_API_KEY],
    ['agents.list.0.env.ANTHROPIC_API_KEY', printed.agents.list[0]?.env?.ANTHROPIC_API_KEY],
    ['hooks.ci.secret', printed.hooks.ci?.secret],
    ['tools.servers.gh.env.GITHUB_TOKEN', printed.tools.servers.gh?.env?.GITHUB_TOKEN],
    ['tools.servers.web.headers.Authorization', printed.tools.servers.web?.headers?.Authorization],
    ['tools.scripts.deploy.env.DEPLOY_KEY', printed.tools.scripts.deploy?.env?.DEPLOY_KEY],
  ])('masks %s', (_key, value) => expect(value).toBe('[redacted]'));

  it('masks nothing else, keeps env names, and leaves the config it was given alone', () => {
    const json = JSON.stringify(printed);
    expect(json).not.toMatch(/-value|telegram-webhook-secret|slacksigningsecret/);
    expect(printed.twilio.accountSid).toBe('AC123');
    expect(printed.telegram.webhook?.url).toBe('https://b.example.com/x');
    expect(Object.keys(printed.agent.env)).toEqual(['API_KEY', 'MODE']);
    expect(config.twilio.authToken).toBe('twilio-auth-value');
    // Every listed key was among those checked above.
    expect(SECRET_PATHS).toEqual([
      'store.url',
      'twilio.authToken',
      'twilio.apiSecret',
      'telegram.botToken',
      'telegram.webhook.secretToken',
      'slack.botToken',
      'slack.appToken',
      'slack.signingSecret',
      'discord.botToken',
      'agent.env',
      'agents.*.env',
      'agents.list.*.env',
      'hooks.*.secret',
      'tools.servers.*.env',
      'tools.servers.*.headers',
      'tools.scripts.*.env',
    ]);
  });

  it('an unset secret stays unset (not a mask that looks like a value)', () => {
    const bare = redactConfig(configSchema.parse({})) as typeof config;
    expect(bare.twilio.authToken).toBeUndefined();
    expect(bare.telegram.botToken).toBeUndefined();
  });
});
