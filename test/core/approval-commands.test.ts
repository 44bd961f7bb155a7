// /approve, /deny and /approvals: parsing, and the decisions as a table (pure).
import { describe, expect, it } from 'vitest';
import { type CommandState, decideCommand } from '../../src/core/command-handler.js';
import { type ChatCommand, parseCommand } from '../../src/core/commands.js';
import { helpText } from '../../src/core/help.js';
import type { PendingLine } from '../../src/core/interaction-text.js';

const NOW = 1_700_000_000_000;
const settings = { prefix: '/', aliases: {} };

describe('parseCommand: approvals', () => {
  it.each<[string, ChatCommand | undefined]>([
    ['/approve', { type: 'approve', forChat: false }],
    ['/approve 12', { type: 'approve', id: 12, forChat: false }],
    ['/approve #12 chat', { type: 'approve', id: 12, forChat: true }],
    ['/APPROVE chat', { type: 'approve', forChat: true }],
    ['/approve now please', { type: 'approve', forChat: false, bad: true }],
    ['/deny', { type: 'deny' }],
    ['/deny 3', { type: 'deny', id: 3 }],
    ['/deny chat', { type: 'deny', bad: true }],
    ['/approvals', { type: 'approvals' }],
    ['/approvals reset', { type: 'approvals', reset: true }],
    ['/approvals clear', { type: 'approvals', bad: true }],
    ['/approved', undefined],
    ['1', undefined],
  ])('%j', (text, want) => expect(parseCommand(text, settings)).toEqual(want));

  it('the help names them', () => {
    const help = helpText(settings);
    expect(help).toContain('/approve [id] [chat]');
    expect(help).toContain('/approvals reset');
  });
});

const approval = (id: number, shown: boolean, over: Partial<PendingLine> = {}): PendingLine => ({
  id,
  type: 'approval',
  asker: 'codex',
  text: 'run: rm -rf build/',
  toolKind: 'shell',
  createdAt: NOW - 120_000,
  ...(shown && { shownAt: NOW - 60_000 }),
  ...over,
});

const base: CommandState = {
  now: NOW,
  settings,
  chat: { verbose: false },
  defaultAgent: 'codex',
  configuredAgents: ['codex'],
  knownAgents: ['codex'],
  shared: false,
  scope: 'twilio:+15550001',
  session: { type: 'none' },
  waiting: 0,
  tasks: [],
  check: () => ({ ok: true, thinkingLevels: [] }),
  pending: [approval(4, true), approval(5, false, { toolKind: 'edit', text: 'edit: src/a.ts' })],
  allowances: [],
  approver: true,
  isGroup: false,
};

type Row = [string, ChatCommand, Partial<CommandState>, string | RegExp, unknown[]];

const rows: Row[] = [
  [
    '/approve answers the shown one once',
    { type: 'approve', forChat: false },
    {},
    'Allowed once: codex wants to run: rm -rf build/.',
    [{ type: 'answer_approval', id: 4, choice: 'allow_once', toolKind: 'shell' }],
  ],
  [
    '/approve 5 chat answers that one and remembers its kind',
    { type: 'approve', id: 5, forChat: true },
    {},
    'Allowed for this chat from now on: edit (/approvals reset to undo).',
    [{ type: 'answer_approval', id: 5, choice: 'allow_chat', toolKind: 'edit' }],
  ],
  [
    '/deny denies the shown one',
    { type: 'deny' },
    {},
    'Denied: codex wants to run: rm -rf build/.',
    [{ type: 'answer_approval', id: 4, choice: 'deny', toolKind: 'shell' }],
  ],
  [
    '/approve 9 matches nothing',
    { type: 'approve', id: 9, forChat: false },
    {},
    'No approval 9 is waiting (/approvals lists them).',
    [],
  ],
  [
    '/approve with nothing waiting',
    { type: 'approve', forChat: false },
    { pending: [] },
    'Nothing is waiting for approval.',
    [],
  ],
  [
    'a question is not an approval',
    { type: 'deny' },
    { pending: [{ ...approval(6, true), type: 'question' }] },
    'Nothing is waiting for approval.',
    [],
  ],
  [
    'a non-approver in a direct chat is told',
    { type: 'approve', forChat: false },
    { approver: false },
    'Only an approver can answer this (permissions.approvers).',
    [],
  ],
  ['a non-approver in a group gets no reply', { type: 'deny' }, { approver: false, isGroup: true }, '', []],
  [
    'bad usage',
    { type: 'approve', forChat: false, bad: true },
    {},
    'Usage: /approve [id] [chat], or /deny [id].',
    [],
  ],
  [
    '/approvals lists allowances and what waits',
    { type: 'approvals' },
    { allowances: ['shell', 'edit'] },
    /^Allowed for this chat: shell, edit \(\/approvals reset forgets them\)\.\nWaiting for an answer \(2\):\n4: codex wants to run: rm -rf build\/ \(asked 1 min ago\)\n5: codex wants to edit: src\/a\.ts \(waiting its turn\)$/,
    [],
  ],
  [
    '/approvals with nothing',
    { type: 'approvals' },
    { pending: [] },
    'Nothing is allowed for this chat: the agent asks each time.\nNothing is waiting for an answer.',
    [],
  ],
  [
    '/approvals reset forgets',
    { type: 'approvals', reset: true },
    { allowances: ['shell'] },
    'Forgot 1 allowance: the agent asks again.',
    [{ type: 'reset_allowances' }],
  ],
  [
    '/approvals reset with none',
    { type: 'approvals', reset: true },
    {},
    'Nothing was allowed for this chat.',
    [],
  ],
  [
    '/approvals reset by a non-approver',
    { type: 'approvals', reset: true },
    { approver: false, allowances: ['shell'] },
    'Only an approver can reset the allowances (permissions.approvers).',
    [],
  ],
  [
    '/status shows what waits',
    { type: 'status' },
    { pending: [approval(4, true)] },
    /\nWaiting for an answer \(1\):\ncodex wants to run: rm -rf build\/ \(asked 1 min ago\)$/,
    [],
  ],
  [
    '/status without anything waiting says nothing of it',
    { type: 'status' },
    { pending: [] },
    /^(?![\s\S]*Waiting for an answer)/,
    [],
  ],
];

describe('decideCommand: approvals', () => {
  it.each(rows)('%s', (_name, cmd, over, reply, effects) => {
    const plan = decideCommand(cmd, { ...base, ...over });
    if (typeof reply === 'string') expect(plan.reply).toBe(reply);
    else expect(plan.reply).toMatch(reply);
    expect(plan.effects).toEqual(effects);
  });
});
