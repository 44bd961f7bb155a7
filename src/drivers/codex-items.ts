// A codex app-server turn's items as the cold runner's stream events, the same rule as
// src/agents/codex.ts applies to `codex exec --json`: a completed `agentMessage` is a message, and
// any other item starting (a command, a file change, a tool call, a plan) means the agent carries
// on, so the message before it is progress. Reasoning is never text; the user's own message (the
// prompt, or a steer) is an item here but not in exec's output, and says nothing either way.
import { CONTINUED, message, NONE } from '../agents/common.js';
import type { StreamEvent } from '../agents/types.js';
import type { ThreadItem } from './codex-protocol.js';

const QUIET: ReadonlySet<ThreadItem['type']> = new Set([
  'agentMessage',
  'reasoning',
  'userMessage',
  'hookPrompt',
]);

export function itemStarted(item: ThreadItem): StreamEvent[] {
  return QUIET.has(item.type) ? NONE : CONTINUED;
}

export function itemCompleted(item: ThreadItem): StreamEvent[] {
  return item.type === 'agentMessage' ? message(item.text) : NONE;
}
