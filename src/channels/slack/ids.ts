// Pure: Slack chat ids. A chat is a conversation (`D…` direct, `C…`/`G…` channels and group DMs), or
// with `slack.threadSessions` one thread of it: `<conversation>:<thread ts>` (`C0123ABCD:1700000000.000100`).
export interface SlackChat {
  conversation: string;
  threadTs?: string;
}

const CHAT = /^([CDG][A-Z0-9]{2,20})(?::(\d{6,12}\.\d{6}))?$/;

export const isSlackChatId = (chatId: string): boolean => CHAT.test(chatId);

export function parseChatId(chatId: string): SlackChat | undefined {
  const m = CHAT.exec(chatId);
  if (!m) return undefined;
  return { conversation: m[1]!, ...(m[2] && { threadTs: m[2] }) };
}

export const chatIdOf = (c: SlackChat): string =>
  c.threadTs ? `${c.conversation}:${c.threadTs}` : c.conversation;

/** A direct message conversation (`D…`); channels and group DMs are several people. */
export const isDirect = (conversation: string): boolean => conversation.startsWith('D');
