import { describe, expect, it } from 'vitest';
import { type ChatFacts, type Route, routeFor, unreachableRoutes } from '../../src/core/routes.js';

const routes: Route[] = [
  { channel: 'twilio', chats: ['+15550002'], agent: 'home', agents: ['work'] },
  { channel: 'whatsapp', group: true, agent: 'readonly' },
  { channel: 'telegram', agent: 'work' },
  { agent: 'work' },
];
const fallback = { agent: 'claude', allowed: ['claude', 'codex'] };

describe('routeFor', () => {
  it.each<[string, ChatFacts, readonly Route[], string, string[], number | undefined]>([
    [
      'a listed number',
      { channel: 'twilio', chatId: '+15550002', isGroup: false },
      routes,
      'home',
      ['home', 'work'],
      0,
    ],
    [
      'another number falls through to the default',
      { channel: 'twilio', chatId: '+15550003', isGroup: false },
      routes,
      'work',
      ['work'],
      3,
    ],
    [
      'a WhatsApp group',
      { channel: 'whatsapp', chatId: '1203@g.us', isGroup: true },
      routes,
      'readonly',
      ['readonly'],
      1,
    ],
    [
      'a WhatsApp direct chat is not the group route',
      { channel: 'whatsapp', chatId: '+15550002', isGroup: false },
      routes,
      'work',
      ['work'],
      3,
    ],
    ['the channel route', { channel: 'telegram', chatId: '42', isGroup: false }, routes, 'work', ['work'], 2],
    [
      'no routes: the fallback',
      { channel: 'twilio', chatId: '+1', isGroup: false },
      [],
      'claude',
      ['claude', 'codex'],
      undefined,
    ],
    [
      'first match wins, not the most specific',
      { channel: 'twilio', chatId: '+15550002', isGroup: false },
      [
        { channel: 'twilio', agent: 'a' },
        { channel: 'twilio', chats: ['+15550002'], agent: 'b' },
      ],
      'a',
      ['a'],
      0,
    ],
  ])('%s', (_n, chat, list, agent, allowed, index) => {
    const got = routeFor(list, chat, fallback);
    expect(got.agent).toBe(agent);
    expect(got.allowed).toEqual(allowed);
    expect(got.index).toBe(index);
  });
});

describe('unreachableRoutes', () => {
  it.each<[string, Route[], number[]]>([
    ['a sensible list', routes, []],
    ['after the catch-all', [{ agent: 'a' }, { channel: 'twilio', agent: 'b' }], [1]],
    [
      'after its channel',
      [
        { channel: 'twilio', agent: 'a' },
        { channel: 'twilio', chats: ['+1'], agent: 'b' },
      ],
      [1],
    ],
    [
      'chats all taken before',
      [
        { chats: ['+1', '+2'], agent: 'a' },
        { chats: ['+2'], agent: 'b' },
      ],
      [1],
    ],
    [
      'chats partly taken before: reachable',
      [
        { chats: ['+1'], agent: 'a' },
        { chats: ['+1', '+2'], agent: 'b' },
      ],
      [],
    ],
    ['an empty chats list', [{ chats: [], agent: 'a' }], [0]],
    [
      'groups after groups of that channel',
      [
        { channel: 'whatsapp', group: true, agent: 'a' },
        { channel: 'whatsapp', group: true, chats: ['x@g.us'], agent: 'b' },
      ],
      [1],
    ],
    [
      'direct after groups: reachable',
      [
        { group: true, agent: 'a' },
        { group: false, agent: 'b' },
      ],
      [],
    ],
    ['a default after another channel: reachable', [{ channel: 'twilio', agent: 'a' }, { agent: 'b' }], []],
  ])('%s', (_n, list, want) => {
    expect(unreachableRoutes(list).map((p) => p.index)).toEqual(want);
  });

  it('names the route that takes the chats', () => {
    expect(unreachableRoutes([{ agent: 'a' }, { agent: 'b' }])[0]?.message).toBe(
      'can never match: route 0 before it takes every chat it names (the first match wins)',
    );
  });
});
