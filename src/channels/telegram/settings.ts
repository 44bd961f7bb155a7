// The channel's settings resolved once from config and environment: the bot token (config, then
// $TELEGRAM_BOT_TOKEN, then `tokenFile`), the allow-lists as strings, and the webhook secret.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Config } from '../../config/schema.js';
import { directAllowList } from '../../core/roles.js';
import type { GateConfig } from './gate.js';

export type TokenResult = { ok: true; token: string } | { ok: false; error: string };

/** A bot token looks like `123456789:AA…` (bot id, colon, 35 characters). */
const TOKEN_SHAPE = /^\d{3,20}:[A-Za-z0-9_-]{20,100}$/;

export function resolveToken(cfg: Config['telegram'], env: NodeJS.ProcessEnv): TokenResult {
  let token = cfg.botToken ?? env.TELEGRAM_BOT_TOKEN;
  if (!token && cfg.tokenFile) {
    try {
      token = readFileSync(cfg.tokenFile, 'utf8').split('\n')[0];
    } catch (err) {
      return {
        ok: false,
        error: `telegram.tokenFile could not be read (${(err as NodeJS.ErrnoException).code})`,
      };
    }
  }
  token = token?.trim();
  if (!token) {
    return {
      ok: false,
      error: 'no bot token: set telegram.botToken, $TELEGRAM_BOT_TOKEN or telegram.tokenFile',
    };
  }
  if (!TOKEN_SHAPE.test(token)) {
    return { ok: false, error: 'the bot token does not look like one from @BotFather (123456789:AA…)' };
  }
  return { ok: true, token };
}

/**
 * The webhook's secret header value: the configured one, else one derived from the token, so a
 * webhook is never left open by omission, and it changes when the token is revoked.
 */
export function webhookSecret(cfg: Config['telegram'], token: string): string {
  return (
    cfg.webhook?.secretToken ??
    createHash('sha256').update(`agentwire-telegram-webhook:${token}`).digest('base64url').slice(0, 64)
  );
}

export function gateConfig(
  cfg: Config['telegram'],
  patterns: readonly RegExp[],
  access: Config['access'] = { owners: [], guests: [], guestCommands: [] },
): GateConfig {
  return {
    // `dm` and access.owners / access.guests widen or narrow direct chats only (core/roles.ts).
    allowFrom: directAllowList(cfg.dm, cfg.allowFrom, access, 'telegram') ?? [],
    groups: cfg.groups,
    groupAllowFrom: cfg.groupAllowFrom ?? cfg.allowFrom,
    groupAlways: cfg.groupAlways,
    mentionPatterns: patterns,
  };
}

export function compilePatterns(patterns: readonly string[]): RegExp[] {
  // The schema already refused invalid expressions.
  return patterns.map((p) => new RegExp(p, 'i'));
}
