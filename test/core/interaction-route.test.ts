import { describe, expect, it } from 'vitest';
import { bareNumber, type RouteInput, routeMessage } from '../../src/core/interaction-route.js';

const approval = { id: 7, type: 'approval' as const };
const question = { id: 8, type: 'question' as const, runSender: '+1555000111' };
const withChoices = { ...question, choices: ['red', 'green'] };

const base: RouteInput = {
  text: '1',
  senderId: '+1555000999',
  isGroup: false,
  approver: true,
  shown: approval,
  recentlyClosedApproval: false,
};

describe('bareNumber', () => {
  it.each([
    ['1', 1],
    [' 2 ', 2],
    ['3.', 3],
    ['#2', 2],
    ['2)', 2],
    ['12', 12],
    ['1 please', undefined],
    ['one', undefined],
    ['', undefined],
    ['1.5', undefined],
    ['-1', undefined],
  ])('%j → %j', (text, n) => expect(bareNumber(text)).toBe(n));
});

describe('routeMessage', () => {
  it.each<[string, Partial<RouteInput>, ReturnType<typeof routeMessage>]>([
    // Nothing pending.
    ['no question: a message', { shown: undefined, text: 'hello' }, { type: 'normal' }],
    ['no question: a bare 1 is a message too', { shown: undefined }, { type: 'normal' }],
    [
      'a late 1 just after an approval closed gets a word',
      { shown: undefined, recentlyClosedApproval: true },
      { type: 'ignore', why: 'nothing_pending', reply: 'Nothing is waiting for approval any more.' },
    ],
    [
      'a late 4 after an approval is a message',
      { shown: undefined, recentlyClosedApproval: true, text: '4' },
      { type: 'normal' },
    ],
    // An approval is shown.
    ['approver 1: allow once', {}, { type: 'approve', id: 7, choice: 'allow_once' }],
    ['approver 2: allow for the chat', { text: '2' }, { type: 'approve', id: 7, choice: 'allow_chat' }],
    ['approver 3.: deny', { text: '3.' }, { type: 'approve', id: 7, choice: 'deny' }],
    [
      'approver 4: matches nothing',
      { text: '4' },
      {
        type: 'ignore',
        why: 'no_match',
        reply: 'No choice 4. Answer 1 (allow once), 2 (allow for this chat) or 3 (deny).',
      },
    ],
    ['approver text: a message that waits', { text: 'why?' }, { type: 'normal' }],
    [
      'non-approver 1 in a direct chat: refused',
      { approver: false },
      {
        type: 'ignore',
        why: 'not_approver',
        reply: 'Only an approver can answer this (permissions.approvers).',
      },
    ],
    ['non-approver 1 in a group: their message', { approver: false, isGroup: true }, { type: 'normal' }],
    [
      'approver 2 in a group counts',
      { isGroup: true, text: '2' },
      { type: 'approve', id: 7, choice: 'allow_chat' },
    ],
    // A question is shown.
    [
      'question: any text answers',
      { shown: question, text: ' blue ' },
      { type: 'answer', id: 8, answer: 'blue' },
    ],
    [
      'question without choices: a number is text',
      { shown: question, text: '5' },
      { type: 'answer', id: 8, answer: '5' },
    ],
    [
      'question: a choice by number',
      { shown: withChoices, text: '2' },
      { type: 'answer', id: 8, answer: 'green' },
    ],
    [
      'question: a number past the choices',
      { shown: withChoices, text: '3' },
      { type: 'ignore', why: 'no_match', reply: 'No choice 3: answer 1 to 2, or in your own words.' },
    ],
    [
      'question: own words despite choices',
      { shown: withChoices, text: 'neither' },
      { type: 'answer', id: 8, answer: 'neither' },
    ],
    [
      'question in a direct chat: anyone who may talk there',
      { shown: question, approver: false, text: 'yes' },
      { type: 'answer', id: 8, answer: 'yes' },
    ],
    [
      'question in a group: the run sender answers',
      { shown: question, approver: false, isGroup: true, senderId: '+1555000111', text: 'yes' },
      { type: 'answer', id: 8, answer: 'yes' },
    ],
    [
      'question in a group: an approver answers',
      { shown: question, isGroup: true, text: 'yes' },
      { type: 'answer', id: 8, answer: 'yes' },
    ],
    [
      'question in a group: anyone else goes on normally',
      { shown: question, approver: false, isGroup: true, text: 'yes' },
      { type: 'normal' },
    ],
    [
      'question: an attachment without text',
      { shown: question, text: '  ' },
      { type: 'answer', id: 8, answer: '(no text: the person sent only an attachment)' },
    ],
    [
      'question: a photo with a caption is named for the agent',
      { shown: question, text: 'this one', attachments: ['[image attached: /in/a.jpg (image/jpeg, 3 KB)]'] },
      { type: 'answer', id: 8, answer: 'this one\n[image attached: /in/a.jpg (image/jpeg, 3 KB)]' },
    ],
  ])('%s', (_name, over, want) => {
    expect(routeMessage({ ...base, ...over })).toEqual(want);
  });
});
