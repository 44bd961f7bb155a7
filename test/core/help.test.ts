// /help and Telegram's menus by role: each person is shown only the commands they may use.
import { describe, expect, it } from 'vitest';
import { type MenuInputs, menuPlan } from '../../src/channels/telegram/commands.js';
import type { CommandName } from '../../src/core/commands.js';
import { type HelpViewer, helpText, visibleBuiltins } from '../../src/core/help.js';

const section = {
  prefix: '/',
  aliases: { neu: 'new', sw: 'agent' },
  deploy: { run: ['d.sh'], description: 'Deploy a branch' },
  standup: { prompt: 'Summarise', access: 'member' as const },
  weather: { prompt: 'Weather', access: 'guest' as const },
};

/** The command words a help text names (`/word` at a line's start), and its alias line. */
const words = (t: string) => [...t.matchAll(/^\/(\w+)/gm)].map((m) => m[1]);

describe('helpText by role', () => {
  it.each<[string, HelpViewer, string[]]>([
    [
      'owner: everything',
      { role: 'owner', guestCommands: [] },
      [
        'new',
        'stop',
        'status',
        'help',
        'agent',
        'think',
        'verbose',
        'tasks',
        'approve',
        'approvals',
        'deploy',
        'standup',
        'weather',
      ],
    ],
    [
      'member: the member built-ins and the member and guest commands',
      { role: 'member', guestCommands: [] },
      ['new', 'stop', 'status', 'help', 'tasks', 'approvals', 'standup', 'weather'],
    ],
    [
      'guest (default grant): /help and the guest command',
      { role: 'guest', guestCommands: ['help'] },
      ['help', 'weather'],
    ],
    [
      'guest granted /new and /agent: /agent stays the owner’s',
      { role: 'guest', guestCommands: ['help', 'new', 'agent'] },
      ['new', 'help', 'weather'],
    ],
    [
      'member named an approver: /approve too',
      { role: 'member', guestCommands: [], approver: true },
      ['new', 'stop', 'status', 'help', 'tasks', 'approve', 'approvals', 'standup', 'weather'],
    ],
  ])('%s', (_name, viewer, want) => {
    expect(words(helpText(section, viewer))).toEqual(want);
  });

  it('names the owner-only forms (/tasks cancel, /approvals reset) to the owner only', () => {
    const owner = helpText(section);
    const member = helpText(section, { role: 'member', guestCommands: [] });
    expect(owner).toContain('/tasks cancel <id>');
    expect(owner).toContain('/approvals reset');
    expect(member).not.toContain('cancel');
    expect(member).not.toContain('approvals reset');
    expect(member).not.toContain('Deploy a branch');
  });

  it('lists an alias only when its command is shown', () => {
    expect(helpText(section)).toContain('Aliases: /neu = /new, /sw = /agent');
    expect(helpText(section, { role: 'member', guestCommands: [] })).toContain('Aliases: /neu = /new');
    expect(helpText(section, { role: 'member', guestCommands: [] })).not.toContain('/sw');
    expect(helpText(section, { role: 'guest', guestCommands: ['help'] })).not.toContain('Aliases');
  });

  it('a guest with no command of their own still gets the list header, never an owner command', () => {
    const t = helpText({ prefix: '/', aliases: {} }, { role: 'guest', guestCommands: [] });
    expect(t).toBe('Commands:');
  });
});

describe('visibleBuiltins', () => {
  it.each<[HelpViewer, CommandName[]]>([
    [
      { role: 'owner', guestCommands: [], approver: false },
      ['new', 'stop', 'status', 'help', 'agent', 'think', 'verbose', 'tasks', 'approvals'],
    ],
    [{ role: 'guest', guestCommands: ['status', 'verbose'] }, ['status']],
  ])('%j', (viewer, want) => expect(visibleBuiltins(viewer)).toEqual(want));
});

describe("Telegram's menus (menuPlan)", () => {
  const base: MenuInputs = {
    prefix: '/',
    section,
    dm: 'allowlist',
    allowFrom: ['42', '43'],
    access: { owners: [], guests: [], guestCommands: ['help'] },
  };
  const names = (cs: { command: string }[]) => cs.map((c) => c.command);

  it.each<[string, Partial<MenuInputs>, string[], string[]]>([
    [
      'members at most: their menu for all, everything for the first allowFrom entry',
      {},
      ['new', 'stop', 'status', 'help', 'tasks', 'approvals', 'standup', 'weather'],
      ['42'],
    ],
    ['dm everyone: a guest’s menu for all', { dm: 'everyone' }, ['help', 'weather'], ['42']],
    [
      'access.guests on another channel only: still members',
      { access: { owners: [], guests: ['whatsapp:+1555'], guestCommands: ['help'] } },
      ['new', 'stop', 'status', 'help', 'tasks', 'approvals', 'standup', 'weather'],
      ['42'],
    ],
    [
      'access.owners for Telegram and for every channel get menus; a phone number is no chat',
      {
        access: {
          owners: ['telegram:7', '9', '+15551234567', 'twilio:+1'],
          guests: ['telegram:5'],
          guestCommands: ['help'],
        },
      },
      ['help', 'weather'],
      ['42', '7', '9'],
    ],
    [
      'allowFrom *: nobody is the first entry',
      { allowFrom: '*' },
      ['new', 'stop', 'status', 'help', 'tasks', 'approvals', 'standup', 'weather'],
      [],
    ],
  ])('%s', (_n, over, everyone, owners) => {
    const plan = menuPlan({ ...base, ...over });
    expect(names(plan.everyone)).toEqual(everyone);
    expect(plan.owners.map((o) => o.chatId)).toEqual(owners);
    for (const o of plan.owners) expect(names(o.commands)).toContain('deploy');
    expect(names(plan.everyone)).not.toContain('deploy');
    expect(names(plan.everyone)).not.toContain('agent');
  });

  it('another prefix: no menu at all (Telegram offers only /commands)', () => {
    expect(menuPlan({ ...base, prefix: '!' })).toEqual({ everyone: [], owners: [] });
  });
});
