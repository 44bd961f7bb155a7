// What the owner sends into a chat from outside a run (`agentwire send`, the control socket): the
// text and files composed as a run's reply would be, under the chat's agent's working folder.
import { dirname, isAbsolute } from 'node:path';
import type { ChatKey, OutboundItem } from '../core/types.js';
import { parseChatKey } from '../core/types.js';
import { chatTextRules } from './chat-text.js';
import { composeItems } from './compose.js';
import { currentAgent, type RunContext } from './execute.js';
import type { QueueOptions } from './queue-types.js';

/**
 * `ownerFiles`: the media are files the owner named on the command line (already absolute real
 * paths): their own folders count as allowed roots, the other checks (regular file, size) stay.
 */
export async function ownerItems(
  opts: QueueOptions,
  context: RunContext,
  chat: ChatKey,
  text: string,
  media: string[],
  ownerFiles: boolean,
): Promise<OutboundItem[]> {
  const target = parseChatKey(chat);
  if (!target) throw new Error(`not a chat key: ${chat}`);
  const resolved = opts.resolve(await currentAgent(context, chat));
  const cwd = resolved.ok ? resolved.agent.base.cwd : opts.defaultCwd;
  return composeItems(
    opts.mediaPolicy,
    {
      text,
      media,
      channel: target.channel,
      cwd,
      limit: chatTextRules(opts, target.channel),
      extraRoots: ownerFiles ? media.filter((m) => isAbsolute(m)).map((m) => dirname(m)) : [],
    },
    opts.log,
  );
}
