// `agentwire doctor` for Telegram: the token is present and well-formed, and (online) Telegram
// accepts it: getMe answers with the bot's @username. Never prints the token.
import type { DoctorCheck, DoctorDeps } from '../plugin.js';
import { makeApi } from './api.js';
import { describeFailure, whoAmI } from './connect.js';
import { resolveToken } from './settings.js';

export async function telegramDoctor(deps: DoctorDeps): Promise<DoctorCheck[]> {
  const tg = deps.config.telegram;
  const t = resolveToken(tg, deps.env);
  if (!t.ok) {
    return [
      {
        check: 'telegram',
        status: 'fail',
        message: t.error,
        fix: 'Create a bot with @BotFather and set telegram.botToken (or $TELEGRAM_BOT_TOKEN / telegram.tokenFile)',
      },
    ];
  }
  const checks: DoctorCheck[] = [];
  if (tg.allowFrom !== '*' && tg.allowFrom.length === 0 && (tg.groups === '*' || tg.groups.length === 0)) {
    checks.push({
      check: 'telegram:allowFrom',
      status: 'warn',
      message: 'telegram.allowFrom and telegram.groups are empty: the bot answers nobody',
      fix: 'Add your numeric user id to telegram.allowFrom (the relay logs it when it drops your message)',
    });
  }
  if (!deps.online) {
    checks.push({ check: 'telegram', status: 'ok', message: 'bot token set (not checked: offline)' });
    return checks;
  }
  try {
    const me = await whoAmI(makeApi(t.token, tg.apiRoot), AbortSignal.timeout(deps.timeoutMs));
    checks.push({ check: 'telegram', status: 'ok', message: `bot @${me.username} answers (getMe)` });
  } catch (err) {
    const message = describeFailure(err);
    const rejected = /rejected the bot token/.test(message);
    checks.push({
      check: 'telegram',
      status: rejected ? 'fail' : 'warn',
      message,
      ...(rejected && {
        fix: 'Copy the token again from @BotFather (/token), or revoke it and set the new one',
      }),
    });
  }
  return checks;
}
