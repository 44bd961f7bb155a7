// Every request codex app-server can send its client, answered without a person: table-tested.
import { describe, expect, it } from 'vitest';
import { policyVerdict, type Verdict } from '../../src/drivers/approval.js';
import { answerCodexRequest } from '../../src/drivers/codex-permission.js';
import type { ServerRequest } from '../../src/drivers/codex-protocol.js';

type PermissionPolicy = 'allow' | 'deny';
/** The verdict the old (policy, cancelling) pair stands for. */
const v = (policy: PermissionPolicy, cancelling: boolean): Verdict =>
  cancelling ? { type: 'cancelled' } : policyVerdict(policy);

const base = { threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 0 };
const req = (method: string, params: object = base) =>
  ({ method, id: 7, params }) as unknown as ServerRequest;
const perms = {
  ...base,
  environmentId: null,
  cwd: '/w',
  reason: null,
  permissions: { network: { enabled: true }, fileSystem: null },
};

type Row = [string, ServerRequest, PermissionPolicy, boolean, unknown];
const rows: Row[] = [
  [
    'command, allow',
    req('item/commandExecution/requestApproval'),
    'allow',
    false,
    { result: { decision: 'accept' } },
  ],
  [
    'command, deny',
    req('item/commandExecution/requestApproval'),
    'deny',
    false,
    { result: { decision: 'decline' } },
  ],
  [
    'command, cancelling',
    req('item/commandExecution/requestApproval'),
    'allow',
    true,
    { result: { decision: 'cancel' } },
  ],
  [
    'file change, allow',
    req('item/fileChange/requestApproval'),
    'allow',
    false,
    { result: { decision: 'accept' } },
  ],
  [
    'file change, deny',
    req('item/fileChange/requestApproval'),
    'deny',
    false,
    { result: { decision: 'decline' } },
  ],
  [
    'permissions, allow: what was asked, this turn only',
    req('item/permissions/requestApproval', perms),
    'allow',
    false,
    { result: { permissions: { network: { enabled: true } }, scope: 'turn' } },
  ],
  [
    'permissions, deny: nothing',
    req('item/permissions/requestApproval', perms),
    'deny',
    false,
    { result: { permissions: {}, scope: 'turn' } },
  ],
  ['v1 exec, allow', req('execCommandApproval'), 'allow', false, { result: { decision: 'approved' } }],
  [
    'v1 patch, deny',
    req('applyPatchApproval'),
    'deny',
    false,
    { result: { decision: { denied: { rejection: expect.any(String) } } } },
  ],
  ['v1 exec, cancelling', req('execCommandApproval'), 'allow', true, { result: { decision: 'abort' } }],
  ['user input: no answers', req('item/tool/requestUserInput'), 'allow', false, { result: { answers: {} } }],
  [
    'MCP form: declined',
    req('mcpServer/elicitation/request'),
    'allow',
    false,
    { result: { action: 'decline', content: null, _meta: null } },
  ],
  [
    'dynamic tool: none registered',
    req('item/tool/call'),
    'allow',
    false,
    { result: { success: false, contentItems: [{ type: 'inputText', text: expect.any(String) }] } },
  ],
  [
    'token refresh: not supported',
    req('account/chatgptAuthTokens/refresh'),
    'allow',
    false,
    { error: { code: -32601, message: expect.any(String) } },
  ],
  [
    'a method newer than the schema',
    req('item/somethingNew/request'),
    'allow',
    false,
    { error: { code: -32601, message: expect.any(String) } },
  ],
];

describe('answerCodexRequest', () => {
  it.each(rows)('%s', (_name, request, policy, cancelling, expected) => {
    expect(answerCodexRequest(request, v(policy, cancelling))).toEqual(expected);
  });
});
