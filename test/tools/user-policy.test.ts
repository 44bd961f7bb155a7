// The pure rules of the user's own tools as tables: names made and read back (never one of ours),
// what a call under each permission policy does, and the text the agent reads of a result.
import { describe, expect, it } from 'vitest';
import { TOOL_NAMES } from '../../src/tools/schemas.js';
import {
  capText,
  contentText,
  decideCall,
  listable,
  parseUserToolName,
  userToolName,
} from '../../src/tools/user-policy.js';

describe('user tool names', () => {
  it.each([
    ['gh__search', { type: 'server', server: 'gh', tool: 'search' }],
    ['my-db__run__query', { type: 'server', server: 'my-db', tool: 'run__query' }],
    ['script__deploy', { type: 'script', script: 'deploy' }],
    ['send_message', undefined],
    ['__x', undefined],
    ['gh__', undefined],
    ['gh__bad name', undefined],
    [`gh__${'x'.repeat(45)}`, undefined],
  ])('%s reads as %j', (name, ref) => {
    expect(parseUserToolName(name)).toEqual(ref);
  });

  it('made names read back, and none of ours reads as a user tool', () => {
    for (const ref of [
      { type: 'server', server: 'gh', tool: 'create_issue' },
      { type: 'script', script: 'deploy' },
    ] as const)
      expect(parseUserToolName(userToolName(ref))).toEqual(ref);
    for (const ours of TOOL_NAMES) expect(parseUserToolName(ours)).toBeUndefined();
  });

  it.each([
    ['gh', 'search', true],
    ['gh', 'has space', false],
    ['gh', 'x'.repeat(44), true],
    ['gh', 'x'.repeat(45), false],
  ])('%s / %s listable: %s', (server, tool, ok) => {
    expect(listable(server, tool)).toBe(ok);
  });
});

describe('what a call does', () => {
  it.each([
    [undefined, false, 'refuse'],
    ['deny', false, 'refuse'],
    ['ask', false, 'ask'],
    ['allow', false, 'run'],
    [undefined, true, 'run'],
    ['deny', true, 'run'],
    ['ask', true, 'run'],
  ] as const)('policy %s, safe %s: %s', (policy, safe, type) => {
    expect(decideCall(policy, safe).type).toBe(type);
  });
});

describe('result text', () => {
  it.each([
    [
      [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
      'a\nb',
    ],
    [[{ type: 'image', data: 'xx', mimeType: 'image/png' }], '[image content, not shown]'],
    [[{ type: 'resource_link', uri: 'file:///a', name: 'a' }], '[resource_link: file:///a]'],
    [[{ type: 'resource', resource: { uri: 'file:///b', text: 'x' } }], '[resource: file:///b]'],
    ['not a list', ''],
  ])('%j reads %j', (content, text) => {
    expect(contentText(content)).toBe(text);
  });

  it('a long text is cut with a note', () => {
    expect(capText('abc', 3)).toBe('abc');
    expect(capText('abcd', 3)).toBe("abc\n[… cut: the tool's output was 4 characters, the most shown is 3]");
  });
});
