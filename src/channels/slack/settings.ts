// The channel's settings resolved once from config and environment: the three secrets (config first,
// then $SLACK_BOT_TOKEN / $SLACK_APP_TOKEN / $SLACK_SIGNING_SECRET), what is missing for the chosen
// mode, and the gate's allow-lists with the project's roles folded in (core/roles.ts).
import type { Config } from '../../config/schema.js';
import { directAllowList } from '../../core/roles.js';
import type { GateConfig } from './gate.js';

export interface SlackSecrets {
  botToken?: string;
  appToken?: string;
  signingSecret?: string;
}

const BOT = /^xoxb-[A-Za-z0-9-]{10,250}$/;
const APP = /^xapp-[A-Za-z0-9-]{10,250}$/;
const SIGNING = /^[A-Za-z0-9]{16,128}$/;

export function resolveSecrets(cfg: Config['slack'], env: NodeJS.ProcessEnv): SlackSecrets {
  const pick = (a: string | undefined, b: string | undefined) => (a ?? b)?.trim() || undefined;
  const botToken = pick(cfg.botToken, env.SLACK_BOT_TOKEN);
  const appToken = pick(cfg.appToken, env.SLACK_APP_TOKEN);
  const signingSecret = pick(cfg.signingSecret, env.SLACK_SIGNING_SECRET);
  return {
    ...(botToken && { botToken }),
    ...(appToken && { appToken }),
    ...(signingSecret && { signingSecret }),
  };
}

export interface Problem {
  key: 'botToken' | 'appToken' | 'signingSecret';
  message: string;
}

/** What keeps the channel from starting under this mode; never a secret's value. */
export function secretProblems(cfg: Config['slack'], s: SlackSecrets): Problem[] {
  const out: Problem[] = [];
  if (!s.botToken)
    out.push({ key: 'botToken', message: 'no bot token: set slack.botToken or $SLACK_BOT_TOKEN (xoxb-…)' });
  else if (!BOT.test(s.botToken))
    out.push({
      key: 'botToken',
      message: 'the bot token does not look like one (xoxb-…, OAuth & Permissions)',
    });
  if (cfg.mode === 'socket') {
    if (!s.appToken)
      out.push({
        key: 'appToken',
        message:
          'Socket Mode needs an app-level token: set slack.appToken or $SLACK_APP_TOKEN (xapp-…, scope connections:write)',
      });
    else if (!APP.test(s.appToken))
      out.push({
        key: 'appToken',
        message: 'the app-level token does not look like one (xapp-…, Basic Information)',
      });
  } else if (!s.signingSecret) {
    out.push({
      key: 'signingSecret',
      message: 'mode "http" needs the signing secret: set slack.signingSecret or $SLACK_SIGNING_SECRET',
    });
  } else if (!SIGNING.test(s.signingSecret)) {
    out.push({
      key: 'signingSecret',
      message: 'the signing secret does not look like one (Basic Information)',
    });
  }
  return out;
}

export function gateConfig(
  cfg: Config['slack'],
  access: Config['access'] = { owners: [], guests: [], guestCommands: [] },
): GateConfig {
  return {
    // `dm` and access.owners / access.guests widen or narrow direct chats only (core/roles.ts).
    allowFrom: directAllowList(cfg.dm, cfg.allowFrom, access, 'slack') ?? [],
    channels: cfg.channels,
    channelAllowFrom: cfg.channelAllowFrom ?? cfg.allowFrom,
    channelAlways: cfg.channelAlways,
    // The schema already refused invalid expressions.
    mentionPatterns: cfg.mentionPatterns.map((p) => new RegExp(p, 'i')),
  };
}
