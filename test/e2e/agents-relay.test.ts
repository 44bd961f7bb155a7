// send_to_agent through the built relay (dist/, a process of its own, the test channel of
// relay-process.test.ts): two named agents on two chats, each a fake claude that is a real MCP
// client of `agentwire mcp` (fixtures/fake-tool-cli.mjs). A request reaches the other agent once,
// also when the relay is SIGKILLed between the call and the target's run; a pair the config does
// not link is refused; a loop between the two stops at tools.maxAgentHops. Needs `npm run build`.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import { type Home, killOrphanGroup, waitFor } from './helpers.js';
import { deliverTo, sentOf, useTestRelay } from './test-relay.js';

const TOOL_CLI = join(import.meta.dirname, 'fixtures', 'fake-tool-cli.mjs');
const WORK_CHAT = '+15550001111';
const HOME_CHAT = '+15550002222';
const MEMBER_CHAT = '+15550003333';
const SLOW = 60_000;

let home: Home;
const relays = useTestRelay({
  stop: 'SIGTERM',
  afterStop: () => {
    for (const e of toolRuns()) killOrphanGroup(e.pid);
  },
});

const tools = (calls: unknown[]) => `TOOLS: ${JSON.stringify(calls)}`;
const ask = (agent: string, text: string) => ({ name: 'send_to_agent', arguments: { agent, text } });

function config(extra: Record<string, unknown> = {}) {
  // Cold: the fake is one process per turn (a named agent does not take agent.mode).
  const cli = { command: [process.execPath, TOOL_CLI], mode: 'cold' };
  return {
    agents: {
      list: [
        { name: 'work', kind: 'claude', ...cli, talksTo: [{ agent: 'home', replyTo: 'owner' }] },
        {
          name: 'home',
          kind: 'claude',
          ...cli,
          ownerChat: `twilio:${HOME_CHAT}`,
          talksTo: [{ agent: 'work' }],
        },
        { name: 'other', kind: 'claude', ...cli },
      ],
    },
    // The two chats are their owners'; anyone else the test channel lets in is a member.
    access: { owners: [WORK_CHAT, HOME_CHAT] },
    routes: [
      { chats: [WORK_CHAT, MEMBER_CHAT], agent: 'work' },
      { chats: [HOME_CHAT], agent: 'home' },
    ],
    ...extra,
  };
}

const startRelay = () => relays.start(home);

const deliver = (text: string, messageId: string, chatId: string) => deliverTo(home, text, messageId, chatId);

const sent = () => sentOf(home);
const sentWith = (marker: string) => sent().filter((s) => s.text.includes(marker));

interface ToolRun {
  ev: 'tools';
  pid: number;
  cwd: string;
  prompt: string;
}
const toolRuns = (): ToolRun[] =>
  home && existsSync(home.fakeLog)
    ? readFileSync(home.fakeLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as ToolRun)
        .filter((e) => e.ev === 'tools')
    : [];
/** The runs whose prompt holds `marker`, by the agent folder they ran in. */
const runsWith = (marker: string) =>
  toolRuns()
    .filter((e) => e.prompt.includes(marker))
    .map((e) => e.cwd.split('/').at(-1));
const called = (): { name: string; isError: boolean; text: string }[] => {
  const file = `${home.fakeLog}.called`;
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];
};

/** The requests send_to_agent stored (rows of the outside-events table), read from the relay's store. */
function requests(): { source: string; state: string; outcome: string | null }[] {
  const db = new DatabaseSync(sqliteFile(home.ctx().paths.home), { readOnly: true });
  try {
    return db.prepare('SELECT source, state, outcome FROM outside_events ORDER BY id').all() as never;
  } finally {
    db.close();
  }
}

describe('send_to_agent through the built relay', () => {
  it('reaches the other agent once, in its own folder and owner chat, across a SIGKILL between the call and the run', async () => {
    home = relays.home(config());
    const a = await startRelay();
    // The home chat is busy with a long run, so the request is stored but cannot run yet.
    await deliver('hold-home sleeponce:60000', 'SM1', HOME_CHAT);
    expect(await waitFor(() => home.events().some((e) => e.ev === 'sleep'), SLOW)).toBe(true);
    // work asks home, then keeps running (its first run sleeps; its redo after the restart does not).
    await deliver(
      tools([ask('home', 'HOME-ASK-1 what is for dinner?'), { sleep: 60_000, once: true }]),
      'SM2',
      WORK_CHAT,
    );
    expect(await waitFor(() => called().some((c) => c.name === 'send_to_agent'), SLOW)).toBe(true);
    expect(called()[0]?.isError, called()[0]?.text).toBe(false);
    expect(called()[0]?.text).toContain('Sent to agent "home"');

    a.child.kill('SIGKILL');
    await a.exit;
    for (const e of toolRuns()) killOrphanGroup(e.pid);
    expect(runsWith('HOME-ASK-1 what')).toEqual(['work']);

    await startRelay();
    expect(await waitFor(() => sentWith('HOME-ASK-1').length > 0, SLOW)).toBe(true);
    // The redo of work's run made the call again, which stored nothing new.
    expect(await waitFor(() => sentWith('send_to_agent ok').length > 0, SLOW)).toBe(true);
    expect(called().filter((c) => c.name === 'send_to_agent' && !c.isError)).toHaveLength(2);
    // Every stored request has run: one request, though the call was made twice.
    expect(
      await waitFor(() => requests().length > 0 && requests().every((r) => r.state === 'done'), SLOW),
    ).toBe(true);
    expect(requests()).toEqual([{ source: 'agent:work', state: 'done', outcome: 'sent' }]);
    // home ran it once, in its own folder, told who asked; its answer went to its owner's chat.
    const homeRuns = toolRuns().filter((e) => e.prompt.includes('agent "work" through'));
    expect(homeRuns.map((e) => e.cwd.split('/').at(-1))).toEqual(['home']);
    expect(homeRuns[0]?.prompt).toContain('hop 1 of at most 3');
    expect(sentWith('HOME-ASK-1').map((s) => s.chatId)).toEqual([HOME_CHAT]);
    expect(sentWith('send_to_agent ok').map((s) => s.chatId)).toEqual([WORK_CHAT]);
  }, 240_000);

  it('refuses a pair the config does not link, and stops a loop A→B→A at the bound', async () => {
    home = relays.home(config({ tools: { maxAgentHops: 3 } }));
    await startRelay();
    await deliver(tools([ask('other', 'not allowed')]), 'SM1', WORK_CHAT);
    expect(await waitFor(() => sentWith('send_to_agent error').length > 0, SLOW)).toBe(true);
    expect(sentWith('send_to_agent error')[0]?.text).toContain('agent "work" may not send to "other"');
    expect(runsWith('not allowed')).toEqual(['work']);
    // A member's words do not reach another agent through work, even on a linked pair.
    await deliver(tools([ask('home', 'MEMBER-ASK')]), 'SM3', MEMBER_CHAT);
    expect(await waitFor(() => sent().some((s) => s.chatId === MEMBER_CHAT), SLOW)).toBe(true);
    expect(sent().find((s) => s.chatId === MEMBER_CHAT)?.text).toContain('this run answers a member');
    expect(runsWith('MEMBER-ASK')).toEqual(['work']);

    // Each hop's text is the next hop's call: work → home → work → home → work (refused).
    let text = 'LOOP-END';
    const chain = ['work', 'home', 'work', 'home'];
    for (const to of chain) text = tools([ask(to, text)]);
    await deliver(text, 'SM2', WORK_CHAT);
    expect(await waitFor(() => sentWith('tools.maxAgentHops 3').length > 0, SLOW)).toBe(true);
    const hops = toolRuns()
      .filter((e) => e.prompt.includes("through agentwire's send_to_agent"))
      .map((e) => `${e.cwd.split('/').at(-1)}@${/hop (\d+)/.exec(e.prompt)?.[1]}`);
    expect(hops).toEqual(['home@1', 'work@2', 'home@3']);
    expect(await waitFor(() => requests().every((r) => r.state === 'done'), SLOW)).toBe(true);
    expect(requests().map((r) => r.source)).toEqual(['agent:work', 'agent:home', 'agent:work']);
    // home at hop 3 was refused: no fourth run, and nothing ran LOOP-END.
    expect(sentWith('tools.maxAgentHops 3').map((s) => s.chatId)).toEqual([HOME_CHAT]);
    expect(toolRuns().some((e) => e.prompt.includes('\n\nLOOP-END'))).toBe(false);
  }, 240_000);
});
