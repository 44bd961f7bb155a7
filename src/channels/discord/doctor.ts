// `agentwire doctor` for Discord: the token is present and well-formed, and (online) Discord accepts
// it: GET /users/@me answers with the bot's name. Then, as cheaply, GET /applications/@me: whether the
// Message Content intent is switched on in the Developer Portal (without it every message arrives
// empty). Never prints the token.
import { API } from '@discordjs/core';
import { DiscordAPIError } from '@discordjs/rest';
import type { DoctorCheck, DoctorDeps } from '../plugin.js';
import { makeRest } from './channel.js';
import { describeFailure } from './errors.js';
import { resolveToken } from './settings.js';

/** Application flags: the Message Content intent, granted (verified bots) or switched on (up to 100 servers). */
const GATEWAY_MESSAGE_CONTENT = 1 << 18;
const GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19;

export async function discordDoctor(deps: DoctorDeps): Promise<DoctorCheck[]> {
  const dc = deps.config.discord;
  const t = resolveToken(dc, deps.env);
  if (!t.ok) {
    return [
      {
        check: 'discord',
        status: 'fail',
        message: t.error,
        fix: 'Developer Portal → your application → Bot → Reset Token; set discord.botToken (or $DISCORD_BOT_TOKEN / discord.tokenFile)',
      },
    ];
  }
  const checks: DoctorCheck[] = [];
  if (dc.allowFrom !== '*' && dc.allowFrom.length === 0 && (dc.guilds === '*' || dc.guilds.length === 0)) {
    checks.push({
      check: 'discord:allowFrom',
      status: 'warn',
      message: 'discord.allowFrom and discord.guilds are empty: the bot answers nobody',
      fix: 'Add your user id to discord.allowFrom (the relay logs it when it drops your message)',
    });
  }
  if (!deps.online) {
    checks.push({ check: 'discord', status: 'ok', message: 'bot token set (not checked: offline)' });
    return checks;
  }
  const api = new API(makeRest(t.token, dc.apiRoot));
  const signal = AbortSignal.timeout(deps.timeoutMs);
  try {
    const me = await api.users.getCurrent({ signal });
    checks.push({ check: 'discord', status: 'ok', message: `bot @${me.username} answers (GET /users/@me)` });
  } catch (err) {
    const rejected = err instanceof DiscordAPIError && err.status === 401;
    checks.push({
      check: 'discord',
      status: rejected ? 'fail' : 'warn',
      message: describeFailure(err),
      ...(rejected && {
        fix: 'Reset the token in the Developer Portal (Bot → Reset Token) and set the new one',
      }),
    });
    return checks;
  }
  try {
    const app = await api.applications.getCurrent({ signal });
    const on = ((app.flags ?? 0) & (GATEWAY_MESSAGE_CONTENT | GATEWAY_MESSAGE_CONTENT_LIMITED)) !== 0;
    checks.push(
      on
        ? { check: 'discord:intents', status: 'ok', message: 'Message Content intent is on' }
        : {
            check: 'discord:intents',
            status: 'fail',
            message: 'the Message Content intent is off: every message reaches the bot empty',
            fix: 'Developer Portal → your application → Bot → Privileged Gateway Intents → Message Content Intent',
          },
    );
  } catch (err) {
    checks.push({
      check: 'discord:intents',
      status: 'warn',
      message: `not checked: ${describeFailure(err)}`,
    });
  }
  return checks;
}
