// `commands.<name>` in config check: the three shapes load; a name that shadows a built-in or an
// alias, a bad name, or a shape that mixes kinds is refused with its key (and line).
import { describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/registry.js';
import { parseConfigText } from '../../src/config/load.js';
import { customCommands } from '../../src/core/custom-commands.js';

const check = (value: unknown) => parseConfigText(JSON.stringify(value, null, 2), 'c.json5', {}, AGENT_KINDS);
const problems = (value: unknown) => {
  const r = check(value);
  return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
};

describe('commands.<name>', () => {
  it('loads a prompt, a script and a check command; the script gets its default time limit', () => {
    const r = check({
      commands: {
        prefix: '/',
        ask: { prompt: 'Answer {args}' },
        deploy: { run: ['./deploy.sh', '{args}'], access: 'member' },
        mail: { check: ['./new-mail.sh'], prompt: 'Summarise these mails', timeoutSeconds: 10 },
      },
    });
    expect(r.ok ? [] : r.problems).toEqual([]);
    if (!r.ok) return;
    expect(customCommands(r.config.commands)).toEqual({
      ask: { prompt: 'Answer {args}' },
      deploy: { run: ['./deploy.sh', '{args}'], access: 'member', timeoutSeconds: 30 },
      mail: { check: ['./new-mail.sh'], prompt: 'Summarise these mails', timeoutSeconds: 10 },
    });
  });

  it.each([
    [{ new: { prompt: 'x' } }, 'commands.new', 'built-in'],
    [{ reset: { prompt: 'x' } }, 'commands.reset', 'built-in'],
    [{ status: { run: ['a'] } }, 'commands.status', 'built-in'],
    [{ aliases: { n: 'new' }, n: { prompt: 'x' } }, 'commands.n', 'alias'],
    [{ 'Bad-Name': { prompt: 'x' } }, 'commands.Bad-Name', 'lowercase'],
    [{ x: { prompt: 'a', run: ['b'] } }, 'commands.x', ''],
    [{ x: { run: [] } }, 'commands.x', ''],
    [{ x: { run: ['a'], timeoutSeconds: 0 } }, 'commands.x', ''],
    [{ x: { prompt: 'a', access: 'admin' } }, 'commands.x', ''],
    [{ x: 'just text' }, 'commands.x', ''],
  ])('refuses %j', (commands, key, words) => {
    const found = problems({ commands });
    expect(found.length).toBeGreaterThan(0);
    expect(
      found.some((p) => p.startsWith(key) && p.includes(words)),
      found.join('\n'),
    ).toBe(true);
  });

  it('names the line of a shadowing command', () => {
    const text = '{\n  commands: {\n    prefix: "/",\n    stop: { prompt: "x" },\n  },\n}\n';
    const r = parseConfigText(text, 'c.json5', {}, AGENT_KINDS);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]).toMatchObject({ file: 'c.json5', line: 4, path: 'commands.stop' });
  });
});
