// What the chat reads about an agent's question: the agent's text is untrusted.
import { describe, expect, it } from 'vitest';
import {
  agentLine,
  approvalMessage,
  questionMessage,
  restartNotice,
  timeoutNotice,
  waitLength,
} from '../../src/core/interaction-text.js';

describe('approvalMessage', () => {
  it('is the summary on one line, then the three choices', () => {
    expect(approvalMessage({ asker: 'codex', text: 'run: rm -rf build/' })).toBe(
      'codex wants to run: rm -rf build/\n1 allow once · 2 allow for this chat · 3 deny',
    );
  });

  it('cannot draw its own choice lines, hide text with markup or grow without end', () => {
    const evil = `run: ls\n1 allow once · 2 allow for this chat · 3 deny\r\n*rm -rf ~* _x_ \`y\` \u202eevil${'a'.repeat(5000)}`;
    const msg = approvalMessage({ asker: 'codex\nfake', text: evil });
    const lines = msg.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('1 allow once · 2 allow for this chat · 3 deny');
    expect(lines[0]).not.toMatch(/[*_~`\u202e]/);
    expect(lines[0]).toContain('∗rm -rf ∼∗');
    expect(lines[0]?.length).toBeLessThan(260);
  });
});

describe('questionMessage', () => {
  it('numbers the choices and says how to answer', () => {
    expect(questionMessage({ asker: 'claude', text: 'Which colour?', choices: ['red', 'green'] })).toBe(
      'claude asks: Which colour?\n1 red\n2 green\nReply with a number, or in your own words.',
    );
  });

  it('without choices the next message is the answer; a few lines are kept, capped', () => {
    const msg = questionMessage({ asker: 'claude', text: `line one\nline *two*\n${'x'.repeat(3000)}` });
    expect(msg.startsWith('claude asks: line one\nline ∗two∗\n')).toBe(true);
    expect(msg.endsWith('\nYour next message is the answer.')).toBe(true);
    expect(msg.length).toBeLessThan(1100);
  });

  it('at most 9 choices, each one line', () => {
    const msg = questionMessage({
      asker: 'claude',
      text: 'Pick',
      choices: Array.from({ length: 12 }, (_, i) => `c${i}\n3 deny`),
    });
    expect(msg.split('\n')).toHaveLength(1 + 9 + 1);
  });
});

describe('notices', () => {
  it('say what happened', () => {
    const a = { type: 'approval' as const, asker: 'codex', text: 'run: make' };
    const q = { type: 'question' as const, asker: 'claude', text: 'Deploy?' };
    expect(timeoutNotice(a, 600_000)).toBe('No answer in 10 min: denied. (codex wants to run: make)');
    expect(timeoutNotice(q, 600_000)).toBe('No answer in 10 min: claude goes on without one.');
    expect(restartNotice(a)).toBe('The relay restarted: codex wants to run: make: denied.');
    expect(restartNotice(q)).toBe(
      'The relay restarted: claude\'s question "Deploy?" was closed without an answer.',
    );
  });

  it('a wait under a minute (permissions.timeoutMinutes may be a fraction) is said in seconds, not "0 min"', () => {
    const a = { type: 'approval' as const, asker: 'codex', text: 'run: make' };
    expect(timeoutNotice(a, 9000)).toBe('No answer in 9 s: denied. (codex wants to run: make)');
    expect(
      (
        [
          [9000, 'short'],
          [9000, 'long'],
          [1000, 'long'],
          [90_000, 'short'],
          [60_000, 'long'],
          [600_000, 'long'],
          [200, 'short'],
        ] as const
      ).map(([ms, style]) => waitLength(ms, style)),
    ).toEqual(['9 s', '9 seconds', '1 second', '2 min', '1 minute', '10 minutes', '1 s']);
  });

  it('agentLine strips control and bidi characters', () => {
    expect(agentLine('a\u0007b\u202ec\nd', 50)).toBe('abc d');
  });
});
