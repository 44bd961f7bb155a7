import { describe, expect, it } from 'vitest';
import { type ChatCommand, parseCommand } from '../../src/core/commands.js';
import { helpText } from '../../src/core/help.js';

const defaults = { prefix: '/', aliases: {} };

describe('parseCommand', () => {
  it.each<[string, ChatCommand | undefined]>([
    ['/new', { type: 'new', rest: '' }],
    ['/reset', { type: 'new', rest: '' }],
    ['  /NEW  ', { type: 'new', rest: '' }],
    ['/new write a haiku', { type: 'new', rest: 'write a haiku' }],
    ['/new\nline one\nline two', { type: 'new', rest: 'line one\nline two' }],
    ['/Reset Keep The Case', { type: 'new', rest: 'Keep The Case' }],
    ['/stop', { type: 'stop' }],
    ['/STOP please', { type: 'stop' }],
    ['/status', { type: 'status' }],
    ['/help', { type: 'help' }],
    ['/agent', { type: 'agent' }],
    ['/agent Codex', { type: 'agent', kind: 'codex' }],
    ['/agent codex extra words', { type: 'agent', kind: 'codex' }],
    ['/think', { type: 'think' }],
    ['/think HIGH', { type: 'think', level: 'high' }],
    ['/verbose', { type: 'verbose' }],
    ['/Verbose ON', { type: 'verbose', value: 'on' }],
    ['/tasks', { type: 'tasks' }],
    ['/Tasks cancel t0a1b2c3d', { type: 'tasks', cancel: 't0a1b2c3d' }],
    ['/tasks CANCEL T0A1', { type: 'tasks', cancel: 'T0A1' }],
    ['/tasks cancel', { type: 'tasks', bad: true }],
    ['/tasks cancel a b', { type: 'tasks', bad: true }],
    ['/tasks list', { type: 'tasks', bad: true }],
    ['/taskss', undefined],
    ['/verbosely', undefined],
    ['/newfoo', undefined],
    ['/stopped', undefined],
    ['new', undefined],
    ['hello /new', undefined],
    ['/', undefined],
    ['/ new', undefined],
    ['/compact', undefined],
    ['', undefined],
  ])('%j → %j', (text, expected) => {
    expect(parseCommand(text, defaults)).toEqual(expected);
  });

  it.each<[string, { prefix: string; aliases: Record<string, string> }, ChatCommand | undefined]>([
    ['!new hi', { prefix: '!', aliases: {} }, { type: 'new', rest: 'hi' }],
    ['/new hi', { prefix: '!', aliases: {} }, undefined],
    ['aw:status', { prefix: 'aw:', aliases: {} }, { type: 'status' }],
    ['AW:status', { prefix: 'aw:', aliases: {} }, { type: 'status' }],
    ['/neu', { prefix: '/', aliases: { neu: 'new' } }, { type: 'new', rest: '' }],
    ['/Halt', { prefix: '/', aliases: { halt: '/stop' } }, { type: 'stop' }],
    ['/halt', { prefix: '/', aliases: { HALT: 'stop' } }, { type: 'stop' }],
    ['/x', { prefix: '/', aliases: { x: 'nonsense' } }, undefined],
    // An alias never shadows a built-in word.
    ['/stop', { prefix: '/', aliases: { stop: 'new' } }, { type: 'stop' }],
  ])('%j with %j → %j', (text, settings, expected) => {
    expect(parseCommand(text, settings)).toEqual(expected);
  });
});

describe('helpText', () => {
  it('names the prefix and the usable aliases', () => {
    const t = helpText({ prefix: '!', aliases: { neu: 'new', bad: 'nope' } });
    expect(t).toContain('!new');
    expect(t).toContain('!stop');
    expect(t).toContain('!neu = !new');
    expect(t).not.toContain('bad');
  });
});
