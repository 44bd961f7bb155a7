// The command decisions as a table: a parsed command and the chat's state in, the reply and the
// effects out. Pure: nothing here touches a store or a lane (the queue tests cover applying them).
import { describe, expect, it } from 'vitest';
import { type CommandState, decideCommand } from '../../src/core/command-handler.js';
import type { ChatCommand } from '../../src/core/commands.js';

const NOW = 1_700_000_000_000;

const base: CommandState = {
  now: NOW,
  settings: { prefix: '/', aliases: {} },
  chat: { verbose: false },
  defaultAgent: 'claude',
  configuredAgents: ['claude', 'codex', 'pi'],
  knownAgents: ['claude', 'codex', 'pi', 'opencode', 'gemini'],
  shared: false,
  scope: 'console:local',
  session: { type: 'none' },
  waiting: 0,
  tasks: [],
  check: (kind) =>
    kind === 'pi'
      ? { ok: false, error: 'pi is not installed.' }
      : { ok: true, thinkingLevels: kind === 'claude' ? ['low', 'high'] : [] },
};

type Row = [string, ChatCommand, Partial<CommandState>, string | RegExp, unknown[]];

const rows: Row[] = [
  [
    '/new alone clears the session and resets the scope',
    { type: 'new', rest: '' },
    {},
    'Started a fresh session. What next?',
    [
      { type: 'clear_session', scope: 'console:local', agent: 'claude' },
      { type: 'reset_scope', scope: 'console:local' },
    ],
  ],
  [
    '/new text in a shared session says so, for the chat agent',
    { type: 'new', rest: 'hi' },
    { shared: true, scope: '*', chat: { agent: 'codex', verbose: false } },
    'Started a fresh session (shared by all chats).',
    [
      { type: 'clear_session', scope: '*', agent: 'codex' },
      { type: 'reset_scope', scope: '*' },
    ],
  ],
  [
    '/stop with a run and two waiting',
    { type: 'stop' },
    { run: { startedAt: NOW - 5000, label: 'message' }, waiting: 2 },
    'Stopped the agent. Dropped 2 waiting messages.',
    [{ type: 'drop_waiting' }, { type: 'stop_run' }],
  ],
  [
    '/stop with nothing running and one waiting',
    { type: 'stop' },
    { waiting: 1 },
    'Nothing is running. Dropped 1 waiting message.',
    [{ type: 'drop_waiting' }, { type: 'stop_run' }],
  ],
  [
    '/status of an active session and a run',
    { type: 'status' },
    {
      session: { type: 'active', createdAt: NOW - 3_600_000, lastUsedAt: NOW - 60_000 },
      run: { startedAt: NOW - 30_000, label: '2 messages' },
      waiting: 3,
      chat: { thinking: 'high', verbose: true },
    },
    'Agent: claude (thinking: high), verbose\nSession: 60 min old, last used 1 min ago\nWaiting messages: 3\nRun: 2 messages, active for 30 s',
    [],
  ],
  [
    '/status of an expired session',
    { type: 'status' },
    { session: { type: 'expired' } },
    /Session: expired/,
    [],
  ],
  ['/help', { type: 'help' }, {}, /\/new \[text\]/, []],
  ['/agent alone', { type: 'agent' }, {}, 'This chat uses claude. Configured agents: claude, codex, pi.', []],
  ['/agent of an unknown kind', { type: 'agent', kind: 'vim' }, {}, /^Unknown agent "vim"/, []],
  [
    '/agent of a kind not configured',
    { type: 'agent', kind: 'gemini' },
    {},
    /gemini is not configured here/,
    [],
  ],
  ['/agent of the current kind', { type: 'agent', kind: 'claude' }, {}, 'This chat already uses claude.', []],
  [
    '/agent of a kind that cannot run',
    { type: 'agent', kind: 'pi' },
    {},
    'Cannot switch to pi: pi is not installed.',
    [],
  ],
  [
    '/agent switches',
    { type: 'agent', kind: 'codex' },
    {},
    'This chat now uses codex.',
    [{ type: 'set_chat', change: { agent: 'codex' } }],
  ],
  [
    '/agent back to the default clears the choice',
    { type: 'agent', kind: 'claude' },
    { chat: { agent: 'codex', verbose: false } },
    'This chat now uses claude.',
    [{ type: 'set_chat', change: { agent: null } }],
  ],
  ['/think alone', { type: 'think' }, {}, 'Thinking: default. Levels for claude: low, high (or off).', []],
  [
    '/think on an agent without levels',
    { type: 'think', level: 'high' },
    { chat: { agent: 'codex', verbose: false } },
    'codex has no thinking levels.',
    [],
  ],
  ['/think unknown level', { type: 'think', level: 'max' }, {}, /^Unknown level "max"/, []],
  [
    '/think sets',
    { type: 'think', level: 'high' },
    {},
    'Thinking level set to high.',
    [{ type: 'set_chat', change: { thinking: 'high' } }],
  ],
  [
    '/think off clears',
    { type: 'think', level: 'off' },
    {},
    /cleared/,
    [{ type: 'set_chat', change: { thinking: null } }],
  ],
  ['/verbose alone, off', { type: 'verbose' }, {}, /^Verbose is off/, []],
  [
    '/verbose on',
    { type: 'verbose', value: 'on' },
    {},
    /^Verbose on/,
    [{ type: 'set_chat', change: { verbose: true } }],
  ],
  [
    '/verbose no',
    { type: 'verbose', value: 'no' },
    {},
    /^Verbose off/,
    [{ type: 'set_chat', change: { verbose: false } }],
  ],
  [
    '/verbose nonsense',
    { type: 'verbose', value: 'maybe' },
    {},
    'Unknown setting "maybe": use on or off.',
    [],
  ],
];

describe('decideCommand', () => {
  it.each(rows)('%s', (_name, cmd, over, reply, effects) => {
    const plan = decideCommand(cmd, { ...base, ...over });
    if (typeof reply === 'string') expect(plan.reply).toBe(reply);
    else expect(plan.reply).toMatch(reply);
    expect(plan.effects).toEqual(effects);
  });
});
