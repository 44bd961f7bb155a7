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
  settleMs: 5000,
};

/** What the chat saw changed this long ago, its run still going (or not). */
const changed = (agoMs: number, runGoing = true) => ({ lastChange: { agoMs, runGoing } });
const RESHOW = (id: number, what = 'your 1') => ({
  type: 'reshow' as const,
  id,
  lead: `The question changed just as ${what} came in, so it was not taken. If it is your answer to this one, send it again:`,
});
const CLOSED = (n: number) => ({
  type: 'ignore' as const,
  why: 'changed' as const,
  reply: `The question on your screen closed just now, so your ${n} was not taken. Send it again if it was meant for the agent.`,
});

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
    // Nothing shown, a question closed lately.
    [
      'a 2 after the run that asked ended: a message for the agent',
      { shown: undefined, ...changed(100, false) },
      { type: 'normal' },
    ],
    [
      'a 2 after the settle time: a message for the agent',
      { shown: undefined, text: '2', ...changed(5000) },
      { type: 'normal' },
    ],
    [
      'a 1 a moment after the question closed, its run going: not taken, said so',
      { shown: undefined, ...changed(300) },
      CLOSED(1),
    ],
    [
      'words a moment after the question closed: a message',
      { shown: undefined, text: 'ok', ...changed(300) },
      { type: 'normal' },
    ],
    // The question shown changed a moment ago (timed out, withdrawn, answered: the next one shown).
    ['approval: a 1 within the settle time is not taken; shown again', changed(300), RESHOW(7)],
    ['approval: a 3 within the settle time too', { text: '3', ...changed(4999) }, RESHOW(7, 'your 3')],
    [
      'approval: a 1 at the settle time counts',
      changed(5000),
      { type: 'approve', id: 7, choice: 'allow_once' },
    ],
    [
      'approval: shown again, the next 1 counts',
      { shown: { ...approval, reshown: true }, ...changed(300) },
      { type: 'approve', id: 7, choice: 'allow_once' },
    ],
    [
      'approval: no settle time configured',
      { settleMs: 0, ...changed(0) },
      { type: 'approve', id: 7, choice: 'allow_once' },
    ],
    [
      'approval: words within the settle time are a message',
      { text: 'wait', ...changed(300) },
      { type: 'normal' },
    ],
    [
      'approval: a non-approver in a group is not told anything',
      { approver: false, isGroup: true, ...changed(300) },
      { type: 'normal' },
    ],
    [
      'question: a choice number within the settle time',
      { shown: withChoices, text: '2', ...changed(300) },
      RESHOW(8, 'your 2'),
    ],
    [
      'question: words within the settle time answer (they say what they answer)',
      { shown: withChoices, text: 'blue', ...changed(300) },
      { type: 'answer', id: 8, answer: 'blue' },
    ],
    [
      'question without choices: a number within the settle time is text',
      { shown: question, text: '5', ...changed(300) },
      { type: 'answer', id: 8, answer: '5' },
    ],
    [
      'question: shown again, a choice number counts',
      { shown: { ...withChoices, reshown: true }, text: '1', ...changed(300) },
      { type: 'answer', id: 8, answer: 'red' },
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
