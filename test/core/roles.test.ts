import { describe, expect, it } from 'vitest';
import type { CommandName } from '../../src/core/commands.js';
import {
  commandAccess,
  type DmPolicy,
  directAllowList,
  leastRole,
  type Role,
  type RoleInput,
  roleOf,
  stopAccess,
} from '../../src/core/roles.js';

const base: RoleInput = {
  channel: 'twilio',
  senderId: '+15550002',
  owner: '+15550001',
  owners: [],
  guests: [],
  members: ['+15550001', '+15550002'],
  dm: 'allowlist',
  isGroup: false,
};

describe('roleOf', () => {
  it.each<[string, Partial<RoleInput>, Role]>([
    ["the channel's owner", { senderId: '+15550001' }, 'owner'],
    ['on allowFrom: a member', {}, 'member'],
    ['in access.owners', { owners: ['+15550002'] }, 'owner'],
    ['in access.owners for this channel', { owners: ['twilio:+15550002'] }, 'owner'],
    ['in access.owners for another channel only', { owners: ['telegram:+15550002'] }, 'member'],
    ['in access.guests, though on allowFrom', { guests: ['+15550002'] }, 'guest'],
    ['owner wins over guest', { senderId: '+15550001', guests: ['+15550001'] }, 'owner'],
    ['allowFrom "*": anyone a member', { senderId: '+15559999', members: '*' }, 'member'],
    ['dm everyone: a stranger is a guest', { senderId: '+15559999', dm: 'everyone' }, 'guest'],
    ['dm everyone: a listed member stays a member', { dm: 'everyone' }, 'member'],
    ['in a group: the group let them in, a member', { senderId: '+15559999', isGroup: true }, 'member'],
    ['in a group, named a guest: a guest', { isGroup: true, guests: ['+15550002'] }, 'guest'],
    ['owner not known yet: not the owner', { senderId: '+15550001', owner: undefined }, 'member'],
    ['no sender id: a guest', { senderId: '' }, 'guest'],
  ])('%s', (_n, over, want) => {
    expect(roleOf({ ...base, ...over })).toBe(want);
  });
});

describe('commandAccess', () => {
  const guestGrant: CommandName[] = ['help', 'status'];
  it.each<[Role, CommandName, boolean, 'allowed' | 'owner_only' | 'not_granted']>([
    ['owner', 'agent', false, 'allowed'],
    ['owner', 'think', false, 'allowed'],
    ['owner', 'tasks', true, 'allowed'],
    ['member', 'agent', false, 'owner_only'],
    ['member', 'think', false, 'owner_only'],
    ['member', 'verbose', false, 'owner_only'],
    ['member', 'new', false, 'allowed'],
    ['member', 'stop', false, 'allowed'],
    ['member', 'status', false, 'allowed'],
    ['member', 'help', false, 'allowed'],
    ['member', 'tasks', false, 'allowed'],
    ['member', 'tasks', true, 'owner_only'],
    ['member', 'approvals', true, 'owner_only'],
    // Answering is for permissions.approvers (the owners unless the owner names others).
    ['member', 'approve', false, 'allowed'],
    ['guest', 'deny', false, 'allowed'],
    ['guest', 'help', false, 'allowed'],
    ['guest', 'status', false, 'allowed'],
    ['guest', 'new', false, 'not_granted'],
    ['guest', 'stop', false, 'not_granted'],
    ['guest', 'agent', false, 'owner_only'],
  ])('%s /%s (changes: %s): %s', (role, cmd, changes, want) => {
    const got = commandAccess(role, cmd, guestGrant, changes);
    expect(got.type === 'allowed' ? 'allowed' : got.reason).toBe(want);
  });

  it('a guest grant cannot hand out an owner-only command', () => {
    expect(commandAccess('guest', 'agent', ['agent', 'think'])).toEqual({
      type: 'refused',
      reason: 'owner_only',
    });
  });
});

describe('leastRole', () => {
  it.each<[Role[], Role]>([
    [['owner'], 'owner'],
    [['owner', 'member'], 'member'],
    [['member', 'guest', 'owner'], 'guest'],
    [[], 'guest'],
  ])('%j → %s', (roles, want) => {
    expect(leastRole(roles)).toBe(want);
  });
});

describe('directAllowList', () => {
  const access = { owners: ['+15550009', 'telegram:42'], guests: ['twilio:+15550008'] };
  it.each<[string, DmPolicy, '*' | string[] | undefined, string, '*' | string[] | undefined]>([
    [
      'allowlist adds owners and guests of the channel',
      'allowlist',
      ['+15550001'],
      'twilio',
      ['+15550001', '+15550009', '+15550008'],
    ],
    ['another channel gets its own entries only', 'allowlist', ['1'], 'telegram', ['1', '+15550009', '42']],
    ['"*" stays "*"', 'allowlist', '*', 'twilio', '*'],
    ['unset with nobody to add stays unset', 'allowlist', undefined, 'whatsapp', ['+15550009']],
    ['everyone', 'everyone', ['+15550001'], 'twilio', '*'],
    [
      "none: only the channel's owner and the owners",
      'none',
      ['+15550001', '+15550002'],
      'twilio',
      ['+15550001', '+15550009'],
    ],
    ['none with "*" first: the owners only', 'none', '*', 'twilio', ['+15550009']],
  ])('%s', (_n, dm, allowFrom, channel, want) => {
    expect(directAllowList(dm, allowFrom, access, channel)).toEqual(want);
  });

  it('unset with no owners or guests keeps WhatsApp\'s "only the linked number"', () => {
    expect(directAllowList('allowlist', undefined, { owners: [], guests: [] }, 'whatsapp')).toBeUndefined();
  });
});

describe('stopAccess', () => {
  it.each<[Role, string[] | undefined, string, boolean]>([
    ['owner', ['+2'], '+1', true],
    ['member', undefined, '+1', true],
    ['member', ['+1'], '+1', true],
    ['member', ['+1', '+1'], '+1', true],
    ['member', ['+1', '+2'], '+1', false],
    ['member', ['+2'], '+1', false],
    ['guest', ['+2'], '+1', false],
  ])('%s stopping a run of %j as %s: %s', (role, senders, sender, want) => {
    expect(stopAccess(role, senders, sender).type === 'allowed').toBe(want);
  });
});
