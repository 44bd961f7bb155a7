// Leader failover across three built relays on one PostgreSQL database: schedules and the agents'
// tasks fire from the process holding the `scheduler` leader lease, once per due time, through
// SIGKILLs of that leader (a new one reloads the job states the last one saved, fenced by its
// epoch). A task added by an agent's tool in a run on one relay is heard by the leader, another
// relay (the tasks-changed notification). Needs `npm run build`.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BUSY_RETRY_MS } from '../../src/heartbeat/schedule-job.js';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { MAIN, ROOT, waitFor } from '../e2e/helpers.js';
import { freshDatabase, queryRows } from '../support/postgres-db.js';
import { type Fleet, schedulerLeader as leader, makeFleet } from '../support/relay-fleet.js';

const TOOL_CLI = join(ROOT, 'test/e2e/fixtures/fake-tool-cli.mjs');
const CHAT = 'twilio:+15551234567';
const iso = (t: number) => `${new Date(t).toISOString().slice(0, 19)}Z`;
const tools = (calls: unknown[]) => `TOOLS: ${JSON.stringify(calls)}`;

let fleet: Fleet | undefined;
afterEach(async ({ task }) => {
  // On a failure the relays' scheduler lines say which relay led and fired what, and when (they
  // showed CI's one failure to be a due time that found the chat busy). Printed here, before the
  // fleet's close removes the logs (onTestFailed runs after this hook).
  if (task.result?.state === 'fail' && fleet)
    for (let i = 0; i < 3; i++)
      for (const l of fleet.logs(i))
        if (/schedul|task|lead|relay started|cut off|moved/.test(String(l.msg)))
          console.log(`relay ${i} ${JSON.stringify(l)}`);
  await fleet?.close();
});

describe('three relays, the scheduler leader SIGKILLed between due times and mid-run', () => {
  it('fires each schedule and each agent task once, and hears a task added on another relay', async () => {
    expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
    const url = await freshDatabase();
    const t0 = Date.now();
    const f = await makeFleet(url, 3, {
      agent: { command: [process.execPath, TOOL_CLI] },
      queue: { whileBusy: 'followup', leaseSeconds: 3 },
      schedules: [
        { id: 'first', at: iso(t0 + 30_000), target: CHAT, prompt: 'schedule first' },
        // Its run sleeps the first time: the leader running it is killed mid-run. Due after the
        // tasks even when one of them found the chat busy and was tried again BUSY_RETRY_MS later
        // (seen in CI: the task ran after this one, which had then already run through uncut).
        {
          id: 'second',
          at: iso(t0 + 45_000 + BUSY_RETRY_MS),
          target: CHAT,
          prompt: `schedule second ${tools([{ sleep: 20_000, once: true }])}`,
        },
      ],
    });
    fleet = f;
    await Promise.all([f.start(0), f.start(1), f.start(2)]);
    let lead = -1;
    for (const end = Date.now() + 45_000; lead < 0 && Date.now() < end; ) {
      lead = await leader(f, url);
      if (lead < 0) await new Promise((r) => setTimeout(r, 50));
    }
    expect(lead, 'a relay leads').toBeGreaterThanOrEqual(0);
    const bodies = () => f.fake.created.map((m) => m.body ?? '');
    const fired = (word: string) => bodies().filter((b) => b.includes(word)).length;

    // The agent schedules two tasks in a run on a relay that does not lead.
    const other = (lead + 1) % 3;
    const body = tools([
      { name: 'schedule_task', arguments: { prompt: 'task one', at: 'now+6s' } },
      { name: 'schedule_task', arguments: { prompt: 'task two', at: 'now+14s' } },
    ]);
    expect((await twilioPost(f.urls[other] as string, smsParams({ Body: body }))).status).toBe(200);
    expect(await waitFor(() => bodies().some((b) => b.includes('schedule_task ok')))).toBe(true);
    expect((await queryRows(url, 'SELECT id FROM agent_tasks')).length).toBe(2);

    // Each due time: once fired, the leader is killed and restarted before the next. A due time that
    // finds the chat busy (the killed leader's chat lease not yet run out, on a loaded machine) is
    // tried again BUSY_RETRY_MS later, by design: the wait allows for that retry (seen in CI).
    for (const word of ['task one', 'task two', 'schedule first']) {
      expect(
        await waitFor(() => fired(word) >= 1, BUSY_RETRY_MS + 40_000),
        `${word}: ${JSON.stringify(bodies())}`,
      ).toBe(true);
      lead = await leader(f, url);
      expect(lead).toBeGreaterThanOrEqual(0);
      await f.kill(lead);
      await f.start(lead);
    }
    // The last one is cut mid-run: the leader that runs it is killed while its agent sleeps. The
    // next leader runs the occurrence again (it was saved as begun) and it is answered once.
    const midRun = () => f.events().filter((e) => e.ev === 'tools' && e.prompt?.includes('schedule second'));
    expect(await waitFor(() => midRun().length === 1, 2 * BUSY_RETRY_MS)).toBe(true);
    // The relay running it, by the fake CLI's log: the leader when it fired, though on a loaded
    // machine (leaseSeconds 3) the lease may have passed to another relay since.
    const runner = f.procs.findIndex((p) => p?.child.pid === midRun()[0]?.ppid);
    expect(runner, 'a relay of the fleet runs the schedule').toBeGreaterThanOrEqual(0);
    await f.kill(runner);
    await f.start(runner);
    expect(await waitFor(() => fired('schedule second') >= 1, 60_000), JSON.stringify(bodies())).toBe(true);
    expect(midRun()).toHaveLength(2);
    // Quiet: no task left, every reply sent.
    const quiet = async () =>
      (await queryRows(url, 'SELECT id FROM agent_tasks')).length === 0 &&
      (await queryRows(url, "SELECT id FROM outbox WHERE status <> 'sent'")).length === 0;
    for (const end = Date.now() + 20_000; !(await quiet()) && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 100));
    expect(await quiet()).toBe(true);
    for (const word of ['task one', 'task two', 'schedule first', 'schedule second'])
      expect(fired(word), `${word}: ${JSON.stringify(bodies())}`).toBe(1);
    console.log(`relays-leader: ${f.killed.size} leader kills, ${Date.now() - t0} ms`);
  }, 300_000);
});
