import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/agents/types.js';
import { updateReducer } from '../../src/drivers/acp-updates.js';

const chunk = (text: string, messageId?: string): SessionUpdate =>
  ({
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text },
    ...(messageId ? { messageId } : {}),
  }) as SessionUpdate;
const thought = (text: string): SessionUpdate =>
  ({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } }) as SessionUpdate;
const tool = { sessionUpdate: 'tool_call', toolCallId: 't', title: 'ls' } as SessionUpdate;
const toolUpdate = {
  sessionUpdate: 'tool_call_update',
  toolCallId: 't',
  status: 'completed',
} as SessionUpdate;
const plan = { sessionUpdate: 'plan', entries: [] } as SessionUpdate;
const usage = { sessionUpdate: 'usage_update', used: 1, size: 2 } as SessionUpdate;
const image = {
  sessionUpdate: 'agent_message_chunk',
  content: { type: 'image', data: '', mimeType: 'image/png' },
} as SessionUpdate;

function run(updates: SessionUpdate[]): StreamEvent[] {
  const r = updateReducer();
  return [...updates.flatMap((u) => r.update(u)), ...r.end()];
}

const msg = (text: string): StreamEvent => ({ type: 'message', text });
const C: StreamEvent = { type: 'continued' };

describe('updateReducer', () => {
  it.each<[string, SessionUpdate[], StreamEvent[]]>([
    [
      'chunks that split words and MEDIA lines make one message',
      [chunk('Here is '), chunk('your chart.\nMEDI'), chunk('A: ./c.png')],
      [msg('Here is your chart.\nMEDIA: ./c.png')],
    ],
    [
      'a tool call closes the message before it',
      [chunk('Looking.'), tool, toolUpdate, chunk('Done.')],
      [msg('Looking.'), C, C, msg('Done.')],
    ],
    [
      'a plan is the agent carrying on',
      [chunk('First.'), plan, chunk('Then.')],
      [msg('First.'), C, msg('Then.')],
    ],
    [
      'a new message id starts a new message',
      [chunk('a', 'm1'), chunk('b', 'm1'), chunk('c', 'm2')],
      [msg('ab'), C, msg('c')],
    ],
    ['thoughts are never reply text', [thought('MEDIA: /etc/passwd'), chunk('Hi.')], [msg('Hi.')]],
    ['other updates change nothing', [chunk('x'), usage, chunk('y')], [msg('xy')]],
    ['non-text content is not text', [chunk('a'), image], [msg('a')]],
    ['whitespace alone is no message', [chunk('  \n'), tool], [C]],
    ['nothing at all', [], []],
  ])('%s', (_name, updates, events) => {
    expect(run(updates)).toEqual(events);
  });
});
