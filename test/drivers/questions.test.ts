// The question each protocol's permission request becomes, and the answer a person's verdict
// becomes (the pure halves of acp-permission.ts, codex-permission.ts, claude-control.ts, pi-ui.ts).
import { describe, expect, it } from 'vitest';
import type { ApprovalQuestion } from '../../src/agents/types.js';
import { acpQuestion, answerPermission } from '../../src/drivers/acp-permission.js';
import { answerControl, claudeQuestion, claudeWarmArgv } from '../../src/drivers/claude-control.js';
import { answerCodexRequest, approvalPolicy, codexQuestion } from '../../src/drivers/codex-permission.js';
import type { ServerRequest } from '../../src/drivers/codex-protocol.js';
import { answerUi, piQuestion } from '../../src/drivers/pi-ui.js';

describe('claudeQuestion', () => {
  const ask = (tool_name: string, input: object, extra: object = {}) => ({
    subtype: 'can_use_tool',
    tool_name,
    input,
    tool_use_id: 't',
    ...extra,
  });
  it.each<[string, Record<string, unknown>, ApprovalQuestion | undefined]>([
    ['Bash', ask('Bash', { command: 'rm -rf build/' }), { toolKind: 'shell', summary: 'run: rm -rf build/' }],
    [
      'Edit inside the folder',
      ask('Edit', { file_path: '/w/src/app.ts' }),
      { toolKind: 'edit', summary: 'edit: src/app.ts' },
    ],
    [
      'Write',
      ask('Write', { file_path: '/tmp/x', content: 'y' }),
      { toolKind: 'edit', summary: 'edit: /tmp/x' },
    ],
    [
      'WebFetch',
      ask('WebFetch', { url: 'https://e.com/a', prompt: 'p' }),
      { toolKind: 'fetch', summary: 'fetch: https://e.com/a' },
    ],
    [
      'an MCP tool',
      ask('mcp__github__create_issue', { title: 'x' }),
      { toolKind: 'mcp:github/create_issue', summary: 'use mcp tool github/create_issue' },
    ],
    ['another tool', ask('Task', { prompt: 'x' }), { toolKind: 'tool:Task', summary: 'use Task' }],
    // Whole and exact: the chat shows the new line written out (core/visible.ts).
    ['a multi-line command', ask('Bash', { command: 'a\nb' }), { toolKind: 'shell', summary: 'run: a\nb' }],
    [
      'no input',
      { subtype: 'can_use_tool', tool_name: 'Bash' },
      { toolKind: 'shell', summary: 'run: a command' },
    ],
    ['not a permission request', { subtype: 'elicitation' }, undefined],
  ])('%s', (_name, request, expected) => {
    expect(claudeQuestion(request, '/w')).toEqual(expected);
  });

  it('a person’s deny carries the reason to the agent; allow_chat is a plain allow', () => {
    const r = ask('Bash', { command: 'ls' });
    expect(answerControl('r', r, { type: 'deny', reason: 'denied from the phone' })).toEqual({
      subtype: 'success',
      request_id: 'r',
      response: { behavior: 'deny', message: 'Denied: denied from the phone.' },
    });
    expect(answerControl('r', r, { type: 'allow_chat' })).toEqual({
      subtype: 'success',
      request_id: 'r',
      response: { behavior: 'allow', updatedInput: { command: 'ls' } },
    });
  });

  it('passes --permission-prompt-tool stdio under ask only', () => {
    const ctx = {
      session: { type: 'new', id: 'a1b2' } as const,
      command: ['claude'],
      cwd: '/w',
      stateDir: '',
    };
    const asked = claudeWarmArgv(ctx, 'ask');
    expect(asked.slice(0, 6)).toEqual([
      'claude',
      '-p',
      '--input-format',
      'stream-json',
      '--permission-prompt-tool',
      'stdio',
    ]);
    for (const p of ['deny', 'allow'] as const)
      expect(claudeWarmArgv(ctx, p)).not.toContain('--permission-prompt-tool');
  });
});

describe('codexQuestion', () => {
  const base = { threadId: 't', turnId: 'u', itemId: 'i', startedAtMs: 0 };
  const req = (method: string, params: object) => ({ method, id: 1, params }) as unknown as ServerRequest;
  it.each<[string, ServerRequest, string[], ApprovalQuestion | undefined]>([
    [
      'a command, with its reason',
      req('item/commandExecution/requestApproval', {
        ...base,
        command: 'rm -rf build/',
        cwd: '/w',
        reason: 'clean up',
      }),
      [],
      { toolKind: 'shell', summary: 'run: rm -rf build/ (clean up)' },
    ],
    [
      'a network approval',
      req('item/commandExecution/requestApproval', {
        ...base,
        networkApprovalContext: { host: 'e.com', protocol: 'https' },
      }),
      [],
      { toolKind: 'network', summary: 'connect to: e.com' },
    ],
    [
      'a file change, its paths from the item',
      req('item/fileChange/requestApproval', { ...base }),
      ['src/app.ts'],
      { toolKind: 'edit', summary: 'edit: src/app.ts' },
    ],
    [
      'a file change of several files',
      req('item/fileChange/requestApproval', base),
      ['a', 'b', 'c'],
      { toolKind: 'edit', summary: 'edit: a and 2 more' },
    ],
    [
      'a file change, item unseen',
      req('item/fileChange/requestApproval', base),
      [],
      { toolKind: 'edit', summary: 'edit files' },
    ],
    [
      'a file change asking for a root',
      req('item/fileChange/requestApproval', { ...base, grantRoot: '/w/out' }),
      [],
      { toolKind: 'edit', summary: 'write under: /w/out' },
    ],
    [
      'more permissions',
      req('item/permissions/requestApproval', {
        ...base,
        cwd: '/w',
        reason: null,
        permissions: { network: { enabled: true }, fileSystem: null },
      }),
      [],
      { toolKind: 'permissions', summary: 'get network access' },
    ],
    [
      'v1 exec, argv quoted',
      req('execCommandApproval', {
        conversationId: 'c',
        callId: 'x',
        approvalId: null,
        command: ['rm', '-rf', 'my dir'],
        cwd: '/w',
        reason: null,
        parsedCmd: [],
      }),
      [],
      { toolKind: 'shell', summary: "run: rm -rf 'my dir'" },
    ],
    [
      'v1 patch',
      req('applyPatchApproval', {
        conversationId: 'c',
        callId: 'x',
        fileChanges: { 'src/a.ts': {} },
        reason: null,
        grantRoot: null,
      }),
      [],
      { toolKind: 'edit', summary: 'edit: src/a.ts' },
    ],
    ['user input is no approval', req('item/tool/requestUserInput', base), [], undefined],
  ])('%s', (_name, request, files, expected) => {
    expect(codexQuestion(request, files)).toEqual(expected);
  });

  it('answers one-time whatever the person said, and a v1 deny with the reason', () => {
    const cmd = req('item/commandExecution/requestApproval', base);
    expect(answerCodexRequest(cmd, { type: 'allow_chat' })).toEqual({ result: { decision: 'accept' } });
    const v1 = req('execCommandApproval', { command: ['ls'] });
    expect(answerCodexRequest(v1, { type: 'deny', reason: 'denied from the phone' })).toEqual({
      result: { decision: { denied: { rejection: 'denied from the phone' } } },
    });
  });

  it.each([
    ['ask', 'untrusted'],
    ['deny', 'never'],
    ['allow', 'never'],
  ] as const)('thread approval policy under %s is %s', (p, out) => {
    expect(approvalPolicy(p)).toBe(out);
  });
});

describe('acpQuestion', () => {
  const call = (toolCall: object) => ({ toolCall: { toolCallId: 't', ...toolCall } as never });
  it.each<[string, object, ApprovalQuestion]>([
    [
      'execute, the command from rawInput',
      { kind: 'execute', title: 'Shell', rawInput: { command: 'touch x' } },
      { toolKind: 'shell', summary: 'run: touch x' },
    ],
    [
      'execute, the title when no rawInput',
      { kind: 'execute', title: 'touch x' },
      { toolKind: 'shell', summary: 'run: touch x' },
    ],
    [
      'edit, the location inside the folder',
      { kind: 'edit', title: 'Edit', locations: [{ path: '/w/src/app.ts' }] },
      { toolKind: 'edit', summary: 'edit: src/app.ts' },
    ],
    [
      'delete',
      { kind: 'delete', title: 'rm', locations: [{ path: '/w/b' }] },
      { toolKind: 'edit', summary: 'delete: b' },
    ],
    [
      'fetch',
      { kind: 'fetch', title: 'Fetch', rawInput: { url: 'https://e.com' } },
      { toolKind: 'fetch', summary: 'fetch: https://e.com' },
    ],
    [
      'read',
      { kind: 'read', title: 'Read', locations: [{ path: '/etc/hosts' }] },
      { toolKind: 'read', summary: 'read: /etc/hosts' },
    ],
    [
      'other: known by its title',
      { kind: 'other', title: 'create_issue (github MCP Server)' },
      { toolKind: 'tool:create_issue (github MCP Server)', summary: 'use create_issue (github MCP Server)' },
    ],
    ['no kind, no title', {}, { toolKind: 'tool:a tool', summary: 'use a tool' }],
  ])('%s', (_name, toolCall, expected) => {
    expect(acpQuestion(call(toolCall), '/w')).toEqual(expected);
  });

  it('allow_chat picks the one-time option; a person’s deny the one-time reject', () => {
    const options = [
      { optionId: 'always', name: 'a', kind: 'allow_always' },
      { optionId: 'once', name: 'o', kind: 'allow_once' },
      { optionId: 'no', name: 'n', kind: 'reject_once' },
    ] as never;
    expect(answerPermission({ options }, { type: 'allow_chat' })).toEqual({
      outcome: { outcome: 'selected', optionId: 'once' },
    });
    expect(answerPermission({ options }, { type: 'deny', reason: 'r' })).toEqual({
      outcome: { outcome: 'selected', optionId: 'no' },
    });
  });
});

describe('piQuestion', () => {
  it.each<[string, Record<string, unknown>, ApprovalQuestion | undefined]>([
    [
      'confirm',
      { id: 'u', method: 'confirm', title: 'Run rm?', message: 'rm -rf build' },
      { toolKind: 'pi:Run rm?', summary: 'Run rm?: rm -rf build' },
    ],
    [
      'a yes/no select (pi’s permission-gate example)',
      {
        id: 'u',
        method: 'select',
        title: '⚠️ Dangerous command:\n\n  rm -rf x\n\nAllow?',
        options: ['Yes', 'No'],
      },
      {
        toolKind: 'pi:⚠️ Dangerous command:',
        summary: '⚠️ Dangerous command:\n\n  rm -rf x\n\nAllow?',
      },
    ],
    [
      'a select of other things',
      { id: 'u', method: 'select', title: 'Pick', options: ['red', 'blue'] },
      undefined,
    ],
    ['free text', { id: 'u', method: 'input', title: 'Name?' }, undefined],
    ['no id', { method: 'confirm', title: 'x' }, undefined],
    ['fire and forget', { id: 'u', method: 'notify', message: 'x' }, undefined],
  ])('%s', (_name, request, expected) => {
    expect(piQuestion(request)).toEqual(expected);
  });

  it('the person’s answer picks the option that says it', () => {
    const select = { id: 'u', method: 'select', title: 't', options: ['Yes', 'No'] };
    expect(answerUi(select, { type: 'allow_chat' })).toEqual({
      type: 'extension_ui_response',
      id: 'u',
      value: 'Yes',
    });
    expect(answerUi(select, { type: 'deny', reason: 'r' })).toEqual({
      type: 'extension_ui_response',
      id: 'u',
      value: 'No',
    });
  });
});
