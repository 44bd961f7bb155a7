// send_card's rules and its text form, as tables: the button cap (50 buttons is a sentence), labels
// that could pass for a chat command, and the numbered list a channel without buttons gets.
import { describe, expect, it } from 'vitest';
import { cardText, checkCard, MAX_CARD_BUTTONS } from '../../src/core/card.js';

const many = (n: number) => Array.from({ length: n }, (_, i) => `Option ${i + 1}`);

describe('checkCard', () => {
  it.each<[string, string, string[], string | undefined]>([
    ['two buttons', 'Deploy?', ['Staging', 'Prod'], undefined],
    ['the most buttons', 'Pick', many(MAX_CARD_BUTTONS), undefined],
    ['emoji and digits first', 'Rate', ['👍 good', '2 stars'], undefined],
    ['50 buttons', 'Pick', many(50), 'a card has at most 10 buttons; you gave 50'],
    ['11 buttons', 'Pick', many(11), 'at most 10 buttons; you gave 11'],
    ['no buttons', 'Pick', [], 'at least one button'],
    ['no title', '  ', ['a'], 'needs a title'],
    ['an empty label', 'Pick', ['a', ' '], 'button 2 has no label'],
    ['a label like a command', 'Pick', ['Yes', '/new'], 'button 2 must start with a letter'],
    ['a label like a bang command', 'Pick', ['!stop'], 'button 1 must start with a letter'],
    ['a label too long', 'Pick', ['x'.repeat(65)], 'longer than 64'],
    ['two labels alike', 'Pick', ['Yes', 'Yes'], 'button 2 repeats "Yes"'],
  ])('%s', (_n, title, buttons, error) => {
    const c = checkCard(title, 'body', buttons);
    if (error === undefined) expect(c).toMatchObject({ ok: true, card: { title: title.trim(), buttons } });
    else {
      expect(c.ok).toBe(false);
      expect((c as { error: string }).error).toContain(error);
    }
  });
});

describe('cardText', () => {
  it('is the title, the body, the numbered choices and how to answer, plain', () => {
    expect(cardText({ title: 'Deploy?', body: 'Build 42 is green.', buttons: ['Staging', 'Prod'] })).toBe(
      'Deploy?\n\nBuild 42 is green.\n\n1. Staging\n2. Prod\n\nAnswer with a number.',
    );
    expect(cardText({ title: 'Deploy?', body: '', buttons: ['Yes'] })).toBe(
      'Deploy?\n\n1. Yes\n\nAnswer with a number.',
    );
  });
});
