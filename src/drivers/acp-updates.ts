// A turn's `session/update` notifications as the cold runner's stream events: the assistant's text
// chunks make up a message, and any sign that the agent carries on (a tool call, a plan, a new
// message id) closes the message before it, which then cannot be the final reply. Thought chunks
// are never reply text: they may hold `MEDIA:`-like lines the agent did not mean to send.
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { CONTINUED, message, NONE } from '../agents/common.js';
import type { StreamEvent } from '../agents/types.js';

export interface UpdateReducer {
  update(u: SessionUpdate): StreamEvent[];
  /** The turn ended: whatever text is pending is the last message. */
  end(): StreamEvent[];
}

export function updateReducer(): UpdateReducer {
  let text = '';
  let messageId: string | undefined;
  const flush = (): StreamEvent[] => {
    const t = text;
    text = '';
    return message(t);
  };
  return {
    update(u) {
      switch (u.sessionUpdate) {
        case 'agent_message_chunk': {
          const id = typeof u.messageId === 'string' ? u.messageId : undefined;
          const before = id !== undefined && messageId !== undefined && id !== messageId ? flush() : NONE;
          if (id !== undefined) messageId = id;
          if (u.content.type === 'text') text += u.content.text;
          return before.length ? [...before, ...CONTINUED] : NONE;
        }
        case 'tool_call':
        case 'tool_call_update':
        case 'plan':
          return [...flush(), ...CONTINUED];
        default:
          return NONE;
      }
    },
    end: flush,
  };
}
