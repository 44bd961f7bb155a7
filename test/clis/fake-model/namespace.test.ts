// codex offers each MCP server's tools inside a Responses `namespace` tool: the fake model offers
// and calls them as `<namespace>__<tool>`, and answers with the item's `namespace` and own `name`.
import { describe, expect, it } from 'vitest';
import { namespacedCall, offeredTools } from './tools.js';

const body = {
  tools: [
    { type: 'function', name: 'exec_command' },
    { type: 'namespace', name: 'mcp__agentwire', tools: [{ type: 'function', name: 'send_message' }] },
    { type: 'web_search' },
  ],
};

describe('Responses namespaces', () => {
  it('offers a namespace tool as <namespace>__<tool>', () => {
    expect(offeredTools('openai-responses', body)).toEqual(['exec_command', 'mcp__agentwire__send_message']);
  });

  it.each([
    ['mcp__agentwire__send_message', { namespace: 'mcp__agentwire', name: 'send_message' }],
    ['mcp__agentwire__nope', undefined],
    ['exec_command', undefined],
  ])('%s → %j', (name, expected) => {
    expect(namespacedCall(body, name)).toEqual(expected);
  });
});
