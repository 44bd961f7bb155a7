// Several people and several agents through the built relay (dist/, a process of its own): signed
// Twilio webhooks on 127.0.0.1, the fake Twilio REST API (the far edge), and a fake CLI that answers
// as claude or codex and logs where it ran (fixtures/fake-place-cli.mjs). Needs `npm run build`.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chatFolderName } from '../../src/core/workspace.js';
import {
  type FakeTwilio,
  fakeTwilioSection,
  sid,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { postWhenUp, smsParams } from '../channels/twilio/helpers/harness.js';
import { bwrapMissing } from '../helpers/bwrap.js';
import { freePort, type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from './helpers.js';

const PLACE_CLI = join(import.meta.dirname, 'fixtures', 'fake-place-cli.mjs');
const OWNER = '+15551234567';
const MEMBER = '+15557654321';
// Starting the built relay on a machine loaded by other jobs can take most of the default bound.
const SLOW = 60_000;

interface PlaceEvent {
  ev: 'start';
  kind: string;
  cwd: string;
  prompt: string;
  session: string;
  resume: boolean;
  home: Record<string, string>;
}

let home: Home | undefined;
let fake: FakeTwilio | undefined;
let proc: Proc | undefined;
afterEach(async () => {
  if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
    proc.child.kill('SIGTERM');
    await proc.exit;
  }
  await fake?.close();
  home?.cleanup();
  proc = undefined;
  fake = undefined;
  home = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

async function start(extra: Record<string, unknown>): Promise<(from: string, body: string) => Promise<void>> {
  fake = await startFakeTwilio();
  const port = await freePort();
  home = makeHome({
    ...extra,
    twilio: fakeTwilioSection(fake, port, { allowFrom: [OWNER, MEMBER] }),
    console: { enabled: false },
    agent: { command: [process.execPath, PLACE_CLI], ...((extra.agent as object) ?? {}) },
  });
  proc = spawnNode([MAIN, 'relay'], { ...home.env, TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' });
  const url = `http://127.0.0.1:${port}/twilio/inbound`;
  return async (from, body) => {
    const res = await postWhenUp(url, smsParams({ From: from, Body: body, MessageSid: sid() }));
    expect(res.status, proc?.stderr()).toBe(200);
  };
}

const events = (): PlaceEvent[] => {
  const file = home?.fakeLog ?? '';
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as PlaceEvent);
};
const repliesTo = (to: string) => (fake?.created ?? []).filter((m) => m.to === to).map((m) => m.body ?? '');
/** Waits for the `n`th reply to `to` and returns it. */
async function reply(to: string, n: number): Promise<string> {
  expect(await waitFor(() => repliesTo(to).length >= n, SLOW), proc?.stderr()).toBe(true);
  return repliesTo(to)[n - 1] ?? '';
}

describe('two senders on one Twilio number, per-chat folders', () => {
  it('each runs in its own folder with its own session; one cannot send the other its files; /agent from a member is refused', {
    timeout: 4 * SLOW,
  }, async () => {
    const send = await start({
      agent: { workspace: 'per-chat' },
      agents: { codex: { mode: 'cold', command: [process.execPath, PLACE_CLI] } },
      // Wide on purpose: without per-chat confinement, this root would let either chat send the
      // other's files.
      media: { allowedRoots: ['/'] },
    });
    await send(OWNER, 'write:secret.txt=owner-only ls');
    expect(await reply(OWNER, 1)).toContain('files: secret.txt');
    const ws = join(home!.dir, 'workspace');
    const ownerDir = join(ws, chatFolderName(`twilio:${OWNER}`));
    const memberDir = join(ws, chatFolderName(`twilio:${MEMBER}`));
    expect(events()[0]?.cwd).toBe(ownerDir);
    expect(statSync(ownerDir).mode & 0o777).toBe(0o700);

    // The member's agent runs in its own folder: it does not see the owner's file there, and a
    // MEDIA: line naming it (by `..` or by its full path) is refused, its content never sent.
    await send(MEMBER, `ls media:../${chatFolderName(`twilio:${OWNER}`)}/secret.txt`);
    const first = await reply(MEMBER, 1);
    expect(first).toMatch(/files: *(\n|$)/);
    expect(first).toContain('Attachment not sent');
    await send(MEMBER, `media:${join(ownerDir, 'secret.txt')}`);
    expect(await reply(MEMBER, 2)).toContain('Attachment not sent');
    expect(
      events()
        .filter((e) => e.prompt.includes('media:'))
        .map((e) => e.cwd),
    ).toEqual([memberDir, memberDir]);
    expect(statSync(memberDir).mode & 0o777).toBe(0o700);
    for (const m of fake?.created ?? []) expect(m.mediaUrl).toEqual([]);
    for (const body of repliesTo(MEMBER)) expect(body).not.toContain('owner-only');

    // Owner-only: the member is refused in one short line, and the chat keeps its agent.
    await send(MEMBER, '/agent codex');
    expect(await reply(MEMBER, 3)).toBe('Only the owner can use /agent.');
    await send(MEMBER, 'still claude?');
    expect(await reply(MEMBER, 4)).toContain('reply(claude): still claude?');

    // Each sender resumes its own session, never the other's.
    await send(OWNER, 'again');
    expect(await reply(OWNER, 2)).toContain('reply(claude): again');
    const runs = events();
    const ownerRuns = runs.filter((e) => e.cwd === ownerDir);
    const memberRuns = runs.filter((e) => e.cwd === memberDir);
    expect(ownerRuns.map((e) => e.resume)).toEqual([false, true]);
    expect(new Set(ownerRuns.map((e) => e.session)).size).toBe(1);
    expect(memberRuns.map((e) => e.resume)).toEqual([false, true, true]);
    expect(new Set(memberRuns.map((e) => e.session)).size).toBe(1);
    expect(ownerRuns[0]?.session).not.toBe(memberRuns[0]?.session);
    // The owner may switch agents: the next run is codex, in the same chat folder.
    await send(OWNER, '/agent codex');
    expect(await reply(OWNER, 3)).toBe('This chat now uses codex.');
    await send(OWNER, 'now codex');
    expect(await reply(OWNER, 4)).toContain('reply(codex): now codex');
    expect(events().at(-1)?.cwd).toBe(ownerDir);
    expect(readdirSync(ws).sort()).toEqual([ownerDir, memberDir].map((d) => d.slice(ws.length + 1)).sort());
  });
});

describe('two named agents routed by chat', () => {
  it('each chat runs its own agent, with its CLI kind, in its own folder', {
    timeout: 3 * SLOW,
  }, async () => {
    const send = await start({
      agents: {
        list: [
          { name: 'work', kind: 'claude', command: [process.execPath, PLACE_CLI], mode: 'cold' },
          {
            name: 'home',
            kind: 'codex',
            command: [process.execPath, PLACE_CLI],
            mode: 'cold',
            cliHome: 'agent',
          },
        ],
      },
      routes: [{ channel: 'twilio', chats: [MEMBER], agent: 'home' }, { agent: 'work' }],
    });
    await send(OWNER, 'hello work');
    await send(MEMBER, 'hello home');
    expect(await reply(OWNER, 1)).toBe('reply(claude): hello work');
    expect(await reply(MEMBER, 1)).toBe('reply(codex): hello home');
    const byPrompt = (p: string) => events().find((e) => e.prompt.includes(p));
    expect(byPrompt('hello work')?.cwd).toBe(join(home!.dir, 'workspaces', 'work'));
    expect(byPrompt('hello home')?.cwd).toBe(join(home!.dir, 'workspaces', 'home'));
    // cliHome 'agent': codex keeps its state in the agent's own folder, not ~/.codex.
    expect(byPrompt('hello home')?.home).toEqual({
      CODEX_HOME: join(home!.dir, 'agents', 'named', 'home', 'home'),
    });
    expect(byPrompt('hello work')?.home).toEqual({});
    // A second message resumes each agent's own session.
    await send(MEMBER, 'again home');
    expect(await reply(MEMBER, 2)).toBe('reply(codex): again home');
    expect(byPrompt('again home')?.resume).toBe(true);
    expect(byPrompt('again home')?.session).toBe(byPrompt('hello home')?.session);
  });
});

describe('send_file from a per-chat agent, through the MCP tools of the built relay', () => {
  it("sends a file from its own chat's folder, and refuses one from another chat's", {
    timeout: 3 * SLOW,
  }, async () => {
    const toolCli = join(import.meta.dirname, 'fixtures', 'fake-tool-cli.mjs');
    const send = await start({ agent: { command: [process.execPath, toolCli], workspace: 'per-chat' } });
    const ws = () => join(home!.dir, 'workspace');
    const ownerDir = () => join(ws(), chatFolderName(`twilio:${OWNER}`));
    const memberDir = () => join(ws(), chatFolderName(`twilio:${MEMBER}`));
    const call = (path: string) => `TOOLS: ${JSON.stringify([{ name: 'send_file', arguments: { path } }])}`;
    // The first message makes the member's folder (and the relay is up once it is answered).
    await send(MEMBER, 'hello');
    await reply(MEMBER, 1);
    await send(OWNER, 'hello');
    await reply(OWNER, 1);
    writeFileSync(join(ownerDir(), 'secret.txt'), 'owner-only');
    writeFileSync(join(memberDir(), 'mine.txt'), 'member-file');
    await send(MEMBER, call(join(ownerDir(), 'secret.txt')));
    expect(await reply(MEMBER, 2)).toMatch(/send_file error: .*(outside|allowed)/);
    await send(MEMBER, call(`../${chatFolderName(`twilio:${OWNER}`)}/secret.txt`));
    expect(await reply(MEMBER, 3)).toMatch(/send_file error: .*(outside|allowed)/);
    // Its own file passes the check (sending it over Twilio then needs a public URL, which this
    // test has none of: that notice is the channel's, after the check).
    await send(MEMBER, call('mine.txt'));
    expect(await waitFor(() => repliesTo(MEMBER).some((b) => b.includes('send_file ok')), SLOW)).toBe(true);
    expect(repliesTo(MEMBER).join('\n')).not.toContain('owner-only');
  });
});

const noBwrap = bwrapMissing();

describe('per-chat folders inside the bwrap sandbox', () => {
  it.skipIf(noBwrap)(
    `a chat's agent cannot read another chat's folder, by its own means${noBwrap ? ` (skipped: ${noBwrap})` : ''}`,
    { timeout: 3 * SLOW },
    async () => {
      const send = await start({ agent: { workspace: 'per-chat', sandbox: 'bwrap' } });
      await send(OWNER, 'write:secret.txt=owner-only read:secret.txt');
      expect(await reply(OWNER, 1)).toContain('read secret.txt: owner-only');
      const ownerDir = join(home!.dir, 'workspace', chatFolderName(`twilio:${OWNER}`));
      expect(readFileSync(join(ownerDir, 'secret.txt'), 'utf8')).toBe('owner-only');
      // The member's agent tries the owner's file by `..` and by its full path, and the relay's
      // database: its sandbox shows only its own folder, so none of them exists there.
      const relative = `../${chatFolderName(`twilio:${OWNER}`)}/secret.txt`;
      const db = join(home!.dir, 'agentwire.db');
      await send(MEMBER, `read:${relative} read:${join(ownerDir, 'secret.txt')} read:${db}`);
      const said = await reply(MEMBER, 1);
      expect(said).toContain(`read ${relative} failed: ENOENT`);
      expect(said).toContain(`read ${join(ownerDir, 'secret.txt')} failed: ENOENT`);
      expect(said).toContain(`read ${db} failed: ENOENT`);
      expect(said).not.toContain('owner-only');
    },
  );
});
