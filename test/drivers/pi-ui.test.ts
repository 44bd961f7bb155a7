// pi's extension dialogs answered without a person: the policy decides, free text is dismissed.
import { describe, expect, it } from 'vitest';
import { policyVerdict, type Verdict } from '../../src/drivers/approval.js';
import { answerUi } from '../../src/drivers/pi-ui.js';

type PermissionPolicy = 'allow' | 'deny';
/** The verdict the old (policy, cancelling) pair stands for. */
const v = (policy: PermissionPolicy, cancelling: boolean): Verdict =>
  cancelling ? { type: 'cancelled' } : policyVerdict(policy);

const confirm = {
  type: 'extension_ui_request',
  id: 'u1',
  method: 'confirm',
  title: 'Run?',
  message: 'rm -rf x',
};
const select = (options: unknown) => ({
  type: 'extension_ui_request',
  id: 'u1',
  method: 'select',
  title: 'Bash?',
  options,
});
const r = (rest: object) => ({ type: 'extension_ui_response', id: 'u1', ...rest });

describe('answerUi', () => {
  it.each<[string, Record<string, unknown>, PermissionPolicy, boolean, unknown]>([
    ['confirm, allow', confirm, 'allow', false, r({ confirmed: true })],
    ['confirm, deny', confirm, 'deny', false, r({ confirmed: false })],
    ['confirm while cancelling', confirm, 'allow', true, r({ cancelled: true })],
    ['select Allow/Deny, allow', select(['Allow', 'Deny']), 'allow', false, r({ value: 'Allow' })],
    ['select Allow/Deny, deny', select(['Allow', 'Deny']), 'deny', false, r({ value: 'Deny' })],
    ['select Yes/No, deny', select(['Yes, run it', 'No']), 'deny', false, r({ value: 'No' })],
    ['select "Allow always" only, deny', select(['Allow always']), 'deny', false, r({ cancelled: true })],
    ['select of other words', select(['red', 'green']), 'allow', false, r({ cancelled: true })],
    ['select with no options list', select(undefined), 'allow', false, r({ cancelled: true })],
    ['"Nothing" is not "No"', select(['Nothing', 'Allow']), 'deny', false, r({ cancelled: true })],
    ['select while cancelling', select(['Allow']), 'allow', true, r({ cancelled: true })],
    ['input', { id: 'u1', method: 'input', title: 'Name?' }, 'allow', false, r({ cancelled: true })],
    ['editor', { id: 'u1', method: 'editor', title: 'Edit' }, 'allow', false, r({ cancelled: true })],
    ['notify wants no answer', { id: 'u1', method: 'notify', message: 'hi' }, 'allow', false, undefined],
    [
      'setStatus wants no answer',
      { id: 'u1', method: 'setStatus', statusKey: 'k' },
      'deny',
      false,
      undefined,
    ],
    ['a dialog without an id', { method: 'confirm', title: 'x' }, 'allow', false, undefined],
  ])('%s', (_name, request, policy, cancelling, expected) => {
    expect(answerUi(request, v(policy, cancelling))).toEqual(expected);
  });
});
