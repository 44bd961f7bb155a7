// The Discord channel editing a message it sent (a run's status line), against the fake Discord on
// 127.0.0.1: the PATCH goes to the message's channel with no pings, a DM's edit to the opened DM
// channel, and an id that is not a snowflake is refused without a call.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordChannel } from '../../../src/channels/discord/channel.js';
import { memoryStateStore } from '../../../src/channels/telegram/state.js';
import type { Channel } from '../../../src/channels/types.js';
import { configSchema } from '../../../src/config/schema.js';
import { waitFor } from '../../e2e/helpers.js';
import { memoryLog } from '../../queue/helpers.js';
import {
  CHANNEL_ID,
  DM_CHANNEL_ID,
  type FakeDiscord,
  GUILD_ID,
  startFakeDiscord,
  TOKEN,
  USER_ID,
} from './fake-discord.js';

let fake: FakeDiscord | undefined;
let channel: Channel | undefined;
let dir: string | undefined;
afterEach(async () => {
  await channel?.stop();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  channel = fake = dir = undefined;
});

async function start(): Promise<Channel> {
  fake = await startFakeDiscord();
  dir = mkdtempSync(join(tmpdir(), 'aw-discord-edit-'));
  const config = configSchema.parse({
    whatsapp: { enabled: false },
    discord: { enabled: true, apiRoot: fake.api, allowFrom: [USER_ID], guilds: [GUILD_ID] },
  });
  const c = createDiscordChannel({
    config,
    paths: { inboundMedia: join(dir, 'in') },
    log: memoryLog().log,
    state: memoryStateStore(),
    env: { DISCORD_BOT_TOKEN: TOKEN },
  });
  channel = c;
  await c.start(async () => ({ type: 'stored', inboxId: 1 }));
  expect(await waitFor(() => c.status().type === 'connected', 20_000)).toBe(true);
  return c;
}

describe('Discord channel: edit', () => {
  it('edits its own message in a server channel and in a DM, with no pings', async () => {
    const c = await start();
    const sent = await c.send(CHANNEL_ID, { type: 'text', text: 'running `npm test`' });
    expect(sent.ok).toBe(true);
    const id = sent.ok ? sent.providerId : undefined;
    const r = await c.edit!(CHANNEL_ID, id!, '3 tools, 48 s');
    expect(r).toEqual({ ok: true, providerId: id });
    const patches = fake!.callsOf('PATCH', /\/messages\/\d+$/);
    expect(patches).toHaveLength(1);
    expect(patches[0]?.route).toBe(`/channels/${CHANNEL_ID}/messages/${id}`);
    expect(patches[0]?.body).toMatchObject({ content: '3 tools, 48 s', allowed_mentions: { parse: [] } });

    const dm = await c.send(`dm:${USER_ID}`, { type: 'text', text: 'reading a file' });
    const dmId = dm.ok ? dm.providerId : undefined;
    expect(await c.edit!(`dm:${USER_ID}`, dmId!, 'done')).toMatchObject({ ok: true });
    expect(fake!.callsOf('PATCH', /\/messages\/\d+$/)[1]?.route).toBe(
      `/channels/${DM_CHANNEL_ID}/messages/${dmId}`,
    );
  });

  it('refuses an id that is not a message id without calling Discord, and returns a 404 as a failure', async () => {
    const c = await start();
    expect(await c.edit!(CHANNEL_ID, 'out:3', 'x')).toMatchObject({ ok: false, code: 'bad_id' });
    expect(fake!.callsOf('PATCH', /./)).toHaveLength(0);
    fake!.failNext('PATCH', /\/messages\/\d+$/, {
      status: 404,
      body: { message: 'Unknown Message', code: 10008 },
    });
    expect(await c.edit!(CHANNEL_ID, '777777777777777777', 'x')).toMatchObject({ ok: false });
    expect(fake!.callsOf('PATCH', /\/messages\/\d+$/)).toHaveLength(1);
  });
});

describe('Discord channel: delete', () => {
  it('deletes its own message (DELETE on its channel, a DM through the opened DM channel)', async () => {
    const c = await start();
    const sent = await c.send(CHANNEL_ID, { type: 'text', text: 'reading a.ts' });
    const id = sent.ok ? sent.providerId : undefined;
    expect(await c.delete!(CHANNEL_ID, id!)).toEqual({ ok: true, providerId: id });
    const dm = await c.send(`dm:${USER_ID}`, { type: 'text', text: 'reading b.ts' });
    const dmId = dm.ok ? dm.providerId : undefined;
    expect(await c.delete!(`dm:${USER_ID}`, dmId!)).toMatchObject({ ok: true });
    expect(fake!.callsOf('DELETE', /\/messages\/\d+$/).map((x) => x.route)).toEqual([
      `/channels/${CHANNEL_ID}/messages/${id}`,
      `/channels/${DM_CHANNEL_ID}/messages/${dmId}`,
    ]);
  });

  it('a message already gone counts as deleted; another refusal is a failure; a bad id calls nothing', async () => {
    const c = await start();
    expect(await c.delete!(CHANNEL_ID, 'out:3')).toMatchObject({ ok: false, code: 'bad_id' });
    expect(fake!.callsOf('DELETE', /./)).toHaveLength(0);
    fake!.failNext('DELETE', /\/messages\/\d+$/, {
      status: 404,
      body: { message: 'Unknown Message', code: 10008 },
    });
    expect(await c.delete!(CHANNEL_ID, '777777777777777777')).toMatchObject({ ok: true });
    fake!.failNext('DELETE', /\/messages\/\d+$/, {
      status: 400,
      body: { message: 'Invalid Form Body', code: 50035 },
    });
    expect(await c.delete!(CHANNEL_ID, '777777777777777778')).toMatchObject({ ok: false, code: '400' });
  });
});
