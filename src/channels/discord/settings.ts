// The channel's settings resolved once from config and environment: the bot token (config, then
// $DISCORD_BOT_TOKEN, then `tokenFile`) and the gate's allow-lists, with the relay's roles folded in.
import { readFileSync } from 'node:fs';
import type { Config } from '../../config/schema.js';
import { directAllowList } from '../../core/roles.js';
import type { GateConfig } from './gate.js';

export type TokenResult = { ok: true; token: string } | { ok: false; error: string };

/**
 * A bot token is three base64url parts joined by dots: the bot's id, a timestamp, an HMAC. Checked
 * loosely (lengths drift), enough to catch a client secret or an application id pasted by mistake.
 */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{18,40}\.[A-Za-z0-9_-]{4,10}\.[A-Za-z0-9_-]{20,80}$/;

export function resolveToken(cfg: Config['discord'], env: NodeJS.ProcessEnv): TokenResult {
  let token = cfg.botToken ?? env.DISCORD_BOT_TOKEN;
  if (!token && cfg.tokenFile) {
    try {
      token = readFileSync(cfg.tokenFile, 'utf8').split('\n')[0];
    } catch (err) {
      return {
        ok: false,
        error: `discord.tokenFile could not be read (${(err as NodeJS.ErrnoException).code})`,
      };
    }
  }
  token = token?.trim().replace(/^Bot\s+/i, '');
  if (!token) {
    return {
      ok: false,
      error: 'no bot token: set discord.botToken, $DISCORD_BOT_TOKEN or discord.tokenFile',
    };
  }
  if (!TOKEN_SHAPE.test(token)) {
    return {
      ok: false,
      error:
        'the bot token does not look like one from the Developer Portal (Bot → Reset Token: three parts joined by dots), not the client secret or application id',
    };
  }
  return { ok: true, token };
}

export function gateConfig(cfg: Config['discord'], access: Config['access']): GateConfig {
  return {
    // `dm` and access.owners / access.guests widen or narrow direct messages only (core/roles.ts).
    allowFrom: directAllowList(cfg.dm, cfg.allowFrom, access, 'discord') ?? [],
    guilds: cfg.guilds,
    groupAllowFrom: cfg.groupAllowFrom ?? cfg.allowFrom,
    groupAlways: cfg.groupAlways,
    // The schema already refused invalid expressions.
    mentionPatterns: cfg.mentionPatterns.map((p) => new RegExp(p, 'i')),
  };
}
