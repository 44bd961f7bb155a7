// Events from outside through the built relay (dist/), with the fake claude as the agent and the
// test channel of relay-process.test.ts: an event file, a signed GitHub-style webhook and
// `agentwire trigger` each wake the agent in the right chat exactly once, also when the relay is
// SIGKILLed after the event was received and before it ran.
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, type Home, killOrphanGroup, MAIN, spawnNode, waitFor } from './helpers.js';
import { deliverTo, sentOf, useTestRelay } from './test-relay.js';

const SECRET = 'e2e-hook-secret-0123456789';
const FILE_CHAT = '+15550001111';
const HOOK_CHAT = '+15550002222';

let home: Home;
const relays = useTestRelay();

const startRelay = () => relays.start(home);

const deliver = (text: string, messageId: string, chatId: string) => deliverTo(home, text, messageId, chatId);

const sent = () => sentOf(home);

const runsWith = (marker: string) =>
  home.events().filter((e) => e.ev === 'start' && e.prompt?.includes(marker));
const sentWith = (marker: string) => sent().filter((s) => s.text.includes(marker));

function postHook(port: number, body: string, delivery: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/hooks/github',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'workflow_run',
          'x-github-delivery': delivery,
          // Signed here as GitHub does, not with the relay's own helper.
          'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('events from outside, through the built relay', () => {
  it('a file and a signed webhook received, SIGKILL before they run, restart: each runs once in its chat; trigger too', async () => {
    const port = await freePort();
    home = relays.home({
      console: { port },
      hooks: {
        github: { secret: SECRET, chat: `twilio:${HOOK_CHAT}`, prompt: 'GitHub says {event}.' },
      },
      events: { rescanSeconds: 1 },
    });
    const a = await startRelay();
    // Both chats busy with a long first run, so the events are received but cannot run yet.
    await deliver('hold-a sleeponce:60000', 'SM1', FILE_CHAT);
    await deliver('hold-b sleeponce:60000', 'SM2', HOOK_CHAT);
    expect(await waitFor(() => home.events().filter((e) => e.ev === 'sleep').length === 2)).toBe(true);

    const file = join(home.dir, 'events', 'ci.json');
    writeFileSync(file, JSON.stringify({ chat: `twilio:${FILE_CHAT}`, text: 'EVENT-FILE-1 CI failed' }));
    const body = JSON.stringify({ action: 'completed', workflow_run: { name: 'HOOK-BODY-1' } });
    expect(await postHook(port, body, 'delivery-1')).toBe(202);
    // Received: the file is gone only once its event is stored.
    expect(await waitFor(() => !existsSync(file))).toBe(true);

    a.child.kill('SIGKILL');
    await a.exit;
    for (const e of home.events())
      if (e.ev === 'start' && e.prompt?.startsWith('hold')) killOrphanGroup(e.pid);
    expect(runsWith('EVENT-FILE-1')).toHaveLength(0);
    expect(runsWith('HOOK-BODY-1')).toHaveLength(0);

    await startRelay();
    // GitHub redelivers the same delivery: answered, not run again.
    expect(await postHook(port, body, 'delivery-1')).toBe(200);
    expect(
      await waitFor(() => sentWith('EVENT-FILE-1').length > 0 && sentWith('HOOK-BODY-1').length > 0),
    ).toBe(true);

    const trig = spawnNode([MAIN, 'trigger', `twilio:${FILE_CHAT}`, '-m', 'TRIGGER-1 backup done'], home.env);
    expect((await trig.exit).code, trig.stderr()).toBe(0);
    expect(trig.stdout()).toMatch(/^Event \d+ stored\.$/m);
    expect(await waitFor(() => sentWith('TRIGGER-1').length > 0)).toBe(true);

    // Each ran once, after the chat's own message, and answered in its own chat.
    expect(runsWith('EVENT-FILE-1')).toHaveLength(1);
    expect(runsWith('HOOK-BODY-1')).toHaveLength(1);
    expect(runsWith('TRIGGER-1')).toHaveLength(1);
    expect(sentWith('EVENT-FILE-1').map((s) => s.chatId)).toEqual([FILE_CHAT]);
    expect(sentWith('HOOK-BODY-1').map((s) => s.chatId)).toEqual([HOOK_CHAT]);
    expect(sentWith('TRIGGER-1').map((s) => s.chatId)).toEqual([FILE_CHAT]);
    const texts = sent()
      .filter((s) => s.chatId === FILE_CHAT)
      .map((s) => s.text);
    expect(texts.findIndex((t) => t.includes('hold-a'))).toBeLessThan(
      texts.findIndex((t) => t.includes('EVENT-FILE-1')),
    );
    // The hook's body reached the agent fenced, as data.
    expect(runsWith('HOOK-BODY-1')[0]?.prompt).toContain(`\`\`\`\n${body}\n\`\`\``);
  }, 180_000);

  it('a bad file is moved to rejected/ with its reason, a bad trigger is refused, and nothing runs', async () => {
    const port = await freePort();
    home = relays.home({ console: { port }, events: { rescanSeconds: 1 } });
    const before = spawnNode([MAIN, 'trigger', 'twilio:+15550003333', '-m', 'x'], home.env);
    expect((await before.exit).code).toBe(1);
    expect(before.stderr()).toContain('No relay is running');
    await startRelay();
    const unknown = spawnNode([MAIN, 'trigger', 'nobody', '-m', 'x'], home.env);
    expect((await unknown.exit).code).toBe(2);
    expect(unknown.stderr()).toContain('Not an event: chat: "nobody" is not a name in targets');
    writeFileSync(
      join(home.dir, 'events', 'bad.json'),
      JSON.stringify({ chat: 'twilio:+15550003333', text: 'x', when: 'now' }),
    );
    const error = join(home.dir, 'events', 'rejected', 'bad.json.error');
    expect(await waitFor(() => existsSync(error))).toBe(true);
    expect(readFileSync(error, 'utf8')).toMatch(/when/);
    expect(home.events().filter((e) => e.ev === 'start')).toHaveLength(0);
  });
});
