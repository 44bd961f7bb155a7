// The command menus of commands.ts registered with Telegram: the default scope for every chat, a chat
// scope for each owner's private chat. A failure is logged and the channel goes on: the menu is a
// convenience, /help still lists what each person may use.
import type { Logger } from '../../log.js';
import type { BotApi } from './api.js';
import type { MenuPlan } from './commands.js';

export async function registerMenus(api: BotApi, plan: MenuPlan, log: Logger): Promise<void> {
  const fail = (err: Error) => log.warn({ err: err.message }, 'setMyCommands failed');
  // Always set, even empty: a menu left from an earlier config must not keep listing owner commands.
  await api.setMyCommands(plan.everyone).catch(fail);
  for (const o of plan.owners) {
    await api.setMyCommands(o.commands, { scope: { type: 'chat', chat_id: Number(o.chatId) } }).catch(fail);
  }
}
