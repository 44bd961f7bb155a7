// Brings the bot up: getMe (who we are, and whether the token is good), the command menu, then the
// transport (long polling after deleteWebhook, or the webhook server and setWebhook). Retried with a
// capped backoff until it works or the channel stops; a rejected token says so in the status.
import { GrammyError } from 'grammy';
import { type BotApi, grammySignal } from './api.js';
import type { Me } from './normalize.js';

export function describeFailure(err: unknown): string {
  if (err instanceof GrammyError) {
    if (err.error_code === 401 || err.error_code === 404) {
      return 'Telegram rejected the bot token (401 Unauthorized): check telegram.botToken or $TELEGRAM_BOT_TOKEN';
    }
    if (err.error_code === 409) {
      return "another program is reading this bot's updates (409 Conflict): stop it, or use one relay per bot";
    }
    return `Telegram ${err.error_code}: ${err.description}`;
  }
  return `Telegram unreachable: ${(err as Error)?.message ?? String(err)}`;
}

export async function whoAmI(api: BotApi, signal?: AbortSignal): Promise<Me> {
  const me = await api.getMe(signal && grammySignal(signal));
  if (!me.username) throw new Error('getMe returned no username');
  return { id: me.id, username: me.username };
}
