import { describe, expect, it } from 'vitest';
import { policyVerdict, type Verdict } from '../../src/drivers/approval.js';
import { answerControl, claudeWarmArgv } from '../../src/drivers/claude-control.js';

type PermissionPolicy = 'allow' | 'deny';
/** The verdict the old (policy, cancelling) pair stands for. */
const v = (policy: PermissionPolicy, cancelling: boolean): Verdict =>
  cancelling ? { type: 'cancelled' } : policyVerdict(policy);

const base = { command: ['claude'], cwd: '/w', stateDir: '/s' };
const STREAM = ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'];

describe('claudeWarmArgv', () => {
  it.each<[string, Parameters<typeof claudeWarmArgv>[0], string[]]>([
    [
      'a new session with a chosen id',
      { ...base, session: { type: 'new', id: 'abc' } },
      ['--session-id', 'abc'],
    ],
    ['a resume', { ...base, session: { type: 'resume', id: 'abc' } }, ['--resume', 'abc']],
    [
      'model, effort and system text as in cold mode',
      {
        ...base,
        session: { type: 'new', id: 'abc' },
        model: 'opus',
        thinking: 'high',
        systemText: 'Be brief.',
      },
      ['--session-id', 'abc', '--model', 'opus', '--effort', 'high', '--append-system-prompt=Be brief.'],
    ],
    [
      "a member's process: claude's network tools off, as cold",
      { ...base, session: { type: 'resume', id: 'abc' }, networkTools: false },
      ['--disallowedTools', 'WebFetch,WebSearch', '--resume', 'abc'],
    ],
  ])('%s', (_name, ctx, tail) => {
    expect(claudeWarmArgv(ctx)).toEqual(['claude', ...STREAM, ...tail]);
  });

  it('keeps the fixed leading arguments of agent.command before -p', () => {
    const argv = claudeWarmArgv({ ...base, command: ['npx', 'claude'], session: { type: 'new', id: 'a' } });
    expect(argv.slice(0, 3)).toEqual(['npx', 'claude', '-p']);
  });

  it('passes no permission flag: the CLI decides by its own rules, as in cold mode', () => {
    const argv = claudeWarmArgv({ ...base, session: { type: 'new', id: 'a' } });
    expect(argv.join(' ')).not.toMatch(/permission|dangerously/);
  });

  it('refuses a session id that could be read as a flag', () => {
    expect(() => claudeWarmArgv({ ...base, session: { type: 'resume', id: '--help' } })).toThrow(
      /session id/,
    );
  });
});

describe('answerControl', () => {
  const ask = { subtype: 'can_use_tool', tool_name: 'Bash', input: { command: 'ls' }, tool_use_id: 't' };
  it.each<[string, Record<string, unknown>, PermissionPolicy, boolean, unknown]>([
    [
      'allow grants the tool with its input unchanged',
      ask,
      'allow',
      false,
      {
        subtype: 'success',
        request_id: 'r',
        response: { behavior: 'allow', updatedInput: { command: 'ls' } },
      },
    ],
    [
      'deny refuses with a message',
      ask,
      'deny',
      false,
      { subtype: 'success', request_id: 'r', response: { behavior: 'deny', message: expect.any(String) } },
    ],
    [
      'during a cancel even allow refuses, and interrupts',
      ask,
      'allow',
      true,
      {
        subtype: 'success',
        request_id: 'r',
        response: { behavior: 'deny', message: expect.any(String), interrupt: true },
      },
    ],
    [
      'allow without an input object grants an empty input',
      { subtype: 'can_use_tool', tool_name: 'Bash' },
      'allow',
      false,
      { subtype: 'success', request_id: 'r', response: { behavior: 'allow', updatedInput: {} } },
    ],
    [
      'any other request is refused as unsupported',
      { subtype: 'elicitation' },
      'allow',
      false,
      { subtype: 'error', request_id: 'r', error: 'agentwire does not support control request elicitation' },
    ],
    [
      'a request without a subtype too',
      {},
      'deny',
      false,
      { subtype: 'error', request_id: 'r', error: 'agentwire does not support control request unknown' },
    ],
  ])('%s', (_name, request, policy, cancelling, expected) => {
    expect(answerControl('r', request, v(policy, cancelling))).toEqual(expected);
  });
});
