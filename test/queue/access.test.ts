// Roles, routes and per-chat places through the queue: a real store, the fake agent and channel at
// the edges, and the role and route ports as the relay builds them from config (queue/access.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { Role } from '../../src/core/roles.js';
import { roleResolver, routeResolver } from '../../src/queue/access.js';
import type { AgentResolver, RoleResolver } from '../../src/queue/ports.js';
import { getChatSettings, getSession } from '../../src/store/sqlite/sessions.js';
import { FakeAgent, FakeChannel, type Harness, harness, ok } from './helpers.js';

let h: Harness;
afterEach(() => h?.cleanup());

const OWNER = '+15550001';
const MEMBER = '+15550002';
const GUEST = '+15550003';
const byNumber: Record<string, Role> = { [OWNER]: 'owner', [MEMBER]: 'member', [GUEST]: 'guest' };
const roles: RoleResolver = ({ senderId }) => byNumber[senderId] ?? 'guest';
const from = (sender: string) => ({ channel: 'twilio', chatId: sender, senderId: sender });

/** The fake agent with `ask` permissions, a member profile that allows, and a per-chat place. */
function resolver(agent: FakeAgent): AgentResolver {
  const base = agent.resolver();
  return (id) => {
    const r = base(id);
    if (!r.ok) return r;
    return {
      ok: true,
      agent: {
        ...r.agent,
        base: { ...r.agent.base, permissions: 'ask' },
        profiles: { member: { permissions: 'allow' } },
        place: (chat) => ({
          cwd: `/work/${id}/${chat}`,
          env: { WHERE: chat },
          stateDir: `/state/${id}/${chat}`,
        }),
      },
    };
  };
}

describe('roles in the queue', () => {
  it('a member asking for /agent gets one short refusal, logged without the number; the chat keeps its agent', async () => {
    h = harness({ channel: new FakeChannel('twilio', 1600), roles });
    await h.send('/agent codex', { ...from(MEMBER), messageId: 'x1' });
    // The same webhook again (a retry): neither answered nor logged twice.
    await h.send('/agent codex', { ...from(MEMBER), messageId: 'x1' });
    await h.queue.whenIdle();
    expect(h.channel.texts()).toEqual(['Only the owner can use /agent.']);
    expect(getChatSettings(h.store.db, `twilio:${MEMBER}`).agent).toBeUndefined();
    const refused = h.lines.filter((l) => l.msg === 'command refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ command: 'agent', role: 'member', why: 'owner_only' });
    expect(JSON.stringify(h.lines)).not.toContain('5550002');
  });

  it.each<[string, string, string, RegExp]>([
    ['a member may /status', MEMBER, '/status', /^Agent: claude/],
    ['a member may not /think', MEMBER, '/think high', /^Only the owner can use \/think\.$/],
    ['a member may not /verbose on', MEMBER, '/verbose on', /^Only the owner can use \/verbose\.$/],
    ['a member may not cancel a task', MEMBER, '/tasks cancel t1', /^Only the owner can use \/tasks\.$/],
    ['a guest may /help', GUEST, '/help', /^Commands:/],
    ['a guest may not /new', GUEST, '/new', /^\/new is not available to you here\.$/],
    ['the owner may /agent', OWNER, '/agent codex', /^This chat now uses codex\.$/],
  ])('%s', async (_n, sender, text, want) => {
    h = harness({ channel: new FakeChannel('twilio', 1600), roles, config: { agents: { codex: {} } } });
    await h.send(text, from(sender));
    await h.queue.whenIdle();
    expect(h.channel.texts()[0]).toMatch(want);
  });

  it.each<[string, string, string[], string[]]>([
    ['the owner', OWNER, ['/agent', '/think', '/deploy', '/tasks cancel', '/standup'], []],
    [
      'a member',
      MEMBER,
      ['/new', '/status', '/standup'],
      ['/agent', '/think', '/verbose', '/deploy', 'cancel', '/approve'],
    ],
    ['a guest', GUEST, ['/help'], ['/new', '/status', '/agent', '/deploy', '/standup']],
  ])('/help to %s lists only what they may use', async (_n, sender, shown, hidden) => {
    const commands = { deploy: { run: ['/bin/true'] }, standup: { prompt: 'Summarise', access: 'member' } };
    h = harness({ channel: new FakeChannel('twilio', 1600), roles, config: { commands } });
    await h.send('/help', from(sender));
    await h.queue.whenIdle();
    const help = h.channel.texts()[0] ?? '';
    expect(help).toMatch(/^Commands:/);
    for (const s of shown) expect(help).toContain(s);
    for (const s of hidden) expect(help).not.toContain(s);
  });

  it("a member's run uses the member profile; the owner's the agent's own permissions; a mixed run the least trusted", async () => {
    const agent = new FakeAgent(() => ok('done'));
    h = harness({ channel: new FakeChannel('twilio', 1600), roles, agent, resolver: resolver(agent) });
    await h.send('hi', from(MEMBER));
    await h.queue.whenIdle();
    await h.send('hi', from(OWNER));
    await h.queue.whenIdle();
    await h.send('hi', { ...from(GUEST), chatId: 'group', isGroup: true });
    await h.queue.whenIdle();
    expect(
      h.agent.calls.map((c) => [c.request.permissions, c.request.readOnly, c.request.networkTools]),
    ).toEqual([
      ['allow', true, false],
      ['ask', undefined, undefined],
      ['deny', true, false],
    ]);
  });
});

describe('/stop by a member', () => {
  const group = (sender: string) => ({ ...from(sender), chatId: 'group1', isGroup: true });

  it("cannot stop another sender's run in a group, nor drop their waiting messages; can stop their own", async () => {
    const agent = new FakeAgent();
    h = harness({
      channel: new FakeChannel('twilio', 1600),
      roles,
      agent,
      config: { queue: { whileBusy: 'followup' } },
    });
    await h.send('owner work', group(OWNER));
    await h.agent.untilCalls(1);
    await h.send('owner next', group(OWNER));
    await h.send('/stop', group(MEMBER));
    await h.channel.untilSent(1);
    expect(h.channel.texts()).toEqual(['You can only stop a run of your own messages.']);
    h.agent.pending[0]?.finish(ok('first done'));
    await h.agent.untilCalls(2);
    expect(h.agent.calls[1]?.request.prompt).toContain('owner next');
    h.agent.pending[0]?.finish(ok('second done'));
    await h.send('member work', group(MEMBER));
    await h.agent.untilCalls(3);
    await h.send('/stop', group(MEMBER));
    await h.queue.whenIdle();
    expect(h.channel.texts()).toContain('Stopped the agent.');
  });
});

describe('per-chat places and agents keyed sessions', () => {
  it("each chat runs in its own place; a switched agent never resumes the other's session", async () => {
    const agent = new FakeAgent(() => ok('done', { sessionId: undefined }));
    h = harness({
      channel: new FakeChannel('twilio', 1600),
      agent,
      resolver: resolver(agent),
      config: { agents: { codex: {} } },
    });
    await h.send('one', from(OWNER));
    await h.send('two', from(MEMBER));
    await h.queue.whenIdle();
    expect(h.agent.calls.map((c) => [c.request.cwd, c.request.env.WHERE])).toEqual([
      [`/work/claude/twilio:${OWNER}`, `twilio:${OWNER}`],
      [`/work/claude/twilio:${MEMBER}`, `twilio:${MEMBER}`],
    ]);
    const chat = `twilio:${OWNER}`;
    const first = getSession(h.store.db, chat, 'claude')?.sessionId;
    expect(first).toBeDefined();
    await h.send('/agent codex', from(OWNER));
    await h.send('three', from(OWNER));
    await h.queue.whenIdle();
    const codexRun = h.agent.calls.at(-1);
    expect(codexRun?.kind).toBe('codex');
    expect(codexRun?.request.session.type).toBe('new');
    expect(getSession(h.store.db, chat, 'claude')?.sessionId).toBe(first);
  });
});

describe('routes through the queue', () => {
  const config = configSchema.parse({
    agents: {
      list: [
        { name: 'work', kind: 'claude' },
        { name: 'home', kind: 'codex' },
      ],
    },
    routes: [{ channel: 'twilio', chats: [MEMBER], agent: 'home' }, { agent: 'work' }],
  });

  it("each chat runs its route's agent; /agent may only pick what the route allows", async () => {
    h = harness({
      channel: new FakeChannel('twilio', 1600),
      route: routeResolver(config),
      config: { agents: { list: config.agents.list }, routes: config.routes },
    });
    await h.send('a', from(OWNER));
    await h.send('b', from(MEMBER));
    await h.queue.whenIdle();
    expect(h.agent.calls.map((c) => c.kind)).toEqual(['work', 'home']);
    await h.send('/agent work', from(MEMBER));
    await h.queue.whenIdle();
    expect(h.channel.texts(MEMBER).at(-1)).toBe(
      "work is not one of this chat's agents (its route in the config says which). Agents here: home.",
    );
  });
});

describe('roleResolver from config', () => {
  it.each<[string, Record<string, unknown>, string, boolean, Role]>([
    [
      "Twilio's first allowFrom entry is the owner",
      { twilio: { allowFrom: [OWNER, MEMBER] } },
      OWNER,
      false,
      'owner',
    ],
    ['the next one a member', { twilio: { allowFrom: [OWNER, MEMBER] } }, MEMBER, false, 'member'],
    [
      'access.owners',
      { twilio: { allowFrom: [OWNER, MEMBER] }, access: { owners: [MEMBER] } },
      MEMBER,
      false,
      'owner',
    ],
    ['access.guests', { twilio: { allowFrom: [OWNER] }, access: { guests: [GUEST] } }, GUEST, false, 'guest'],
    [
      'a stranger under dm everyone',
      { twilio: { allowFrom: [OWNER], dm: 'everyone' } },
      '+15559999',
      false,
      'guest',
    ],
  ])('%s', (_n, raw, sender, isGroup, want) => {
    const resolve = roleResolver(configSchema.parse(raw), new Map());
    expect(resolve({ channel: 'twilio', senderId: sender, isGroup })).toBe(want);
  });

  it('the console is the owner', () => {
    expect(
      roleResolver(
        configSchema.parse({}),
        new Map(),
      )({ channel: 'console', senderId: 'local', isGroup: false }),
    ).toBe('owner');
  });
});
