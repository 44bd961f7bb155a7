import { describe, expect, it } from 'vitest';
import { answerPermission } from '../../src/drivers/acp-permission.js';
import { policyVerdict, type Verdict } from '../../src/drivers/approval.js';

type PermissionPolicy = 'allow' | 'deny';
/** The verdict the old (policy, cancelling) pair stands for. */
const v = (policy: PermissionPolicy, cancelling: boolean): Verdict =>
  cancelling ? { type: 'cancelled' } : policyVerdict(policy);

const opt = (optionId: string, kind: string) => ({ optionId, name: optionId, kind }) as never;
// gemini 0.61's options for a shell command, in its order (fixtures/agents/gemini/warm/acp-tool-deny.json).
const gemini = [
  opt('proceed_always', 'allow_always'),
  opt('proceed_once', 'allow_once'),
  opt('cancel', 'reject_once'),
];

describe('answerPermission', () => {
  it.each<[string, unknown[], PermissionPolicy, boolean, unknown]>([
    ['deny picks the one-time reject', gemini, 'deny', false, { outcome: 'selected', optionId: 'cancel' }],
    [
      'allow picks the one-time allow over "always"',
      gemini,
      'allow',
      false,
      { outcome: 'selected', optionId: 'proceed_once' },
    ],
    [
      'allow falls back to "always" when that is all there is',
      [opt('a', 'allow_always'), opt('r', 'reject_once')],
      'allow',
      false,
      { outcome: 'selected', optionId: 'a' },
    ],
    [
      'deny falls back to "always" reject',
      [opt('a', 'allow_once'), opt('r', 'reject_always')],
      'deny',
      false,
      { outcome: 'selected', optionId: 'r' },
    ],
    [
      'deny with only allow options refuses to choose',
      [opt('a', 'allow_once')],
      'deny',
      false,
      { outcome: 'cancelled' },
    ],
    ['no options at all', [], 'allow', false, { outcome: 'cancelled' }],
    ['options that are not a list', 'nope' as never, 'allow', false, { outcome: 'cancelled' }],
    [
      'an option without an id is skipped',
      [{ kind: 'allow_once' }, opt('b', 'allow_always')],
      'allow',
      false,
      { outcome: 'selected', optionId: 'b' },
    ],
    ['unknown kinds are never picked', [opt('x', 'allow_forever')], 'allow', false, { outcome: 'cancelled' }],
    ['while cancelling, every question is cancelled', gemini, 'allow', true, { outcome: 'cancelled' }],
  ])('%s', (_name, options, policy, cancelling, outcome) => {
    expect(answerPermission({ options: options as never }, v(policy, cancelling))).toEqual({ outcome });
  });
});
