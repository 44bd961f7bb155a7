// A relay paused (SIGSTOP) past its lease in the middle of a run, on PostgreSQL: the other relay
// takes the chat and runs the message again; then the first is resumed (SIGCONT) with its agent's
// answer waiting in the pipe. It must write and send nothing its successor did not: the reply goes
// out once, from the successor, and the resumed relay's late finish is refused by the fence.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { type Home, MAIN, relayLogLines, waitFor } from '../e2e/helpers.js';
import { freshDatabase, queryRows } from '../support/postgres-db.js';
import { type Fleet, makeFleet } from '../support/relay-fleet.js';

let fleet: Fleet | undefined;
let paused: number | undefined;
afterEach(async () => {
  if (paused) process.kill(paused, 'SIGCONT');
  await fleet?.close();
});

describe('a relay paused past its lease mid-run, then resumed (PostgreSQL)', () => {
  it('writes and sends nothing its successor did not', async () => {
    expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
    const url = await freshDatabase();
    const f = await makeFleet(url, 2, { queue: { whileBusy: 'followup', leaseSeconds: 3 } });
    fleet = f;
    await Promise.all([f.start(0), f.start(1)]);
    const text = 'paused sleeponce:5000';
    const res = await twilioPost(
      f.urls[0] as string,
      smsParams({ Body: text, MessageSid: `SM${'e'.repeat(32)}` }),
    );
    expect(res.status).toBe(200);
    expect(await waitFor(() => f.events().some((e) => e.ev === 'sleep'))).toBe(true);
    const first = f.events().find((e) => e.ev === 'start');
    const holder = f.procs.findIndex((p) => p?.child.pid === first?.ppid);
    expect(holder).toBeGreaterThanOrEqual(0);
    const successor = 1 - holder;
    const pausedPid = first?.ppid as number;
    process.kill(pausedPid, 'SIGSTOP');
    paused = pausedPid;

    // The successor takes the chat once the lease ran out, runs the message again and answers.
    const successorPid = f.procs[successor]?.child.pid;
    expect(
      await waitFor(() => f.events().some((e) => e.ev === 'start' && e.ppid === successorPid)),
      f.procs[successor]?.stderr(),
    ).toBe(true);
    expect(await waitFor(() => f.fake.created.length === 1)).toBe(true);
    // A second message, taken and answered by the successor while the first relay is still paused.
    const next = await twilioPost(
      f.urls[successor] as string,
      smsParams({ Body: 'after the takeover', MessageSid: `SM${'f'.repeat(32)}` }),
    );
    expect(next.status).toBe(200);
    expect(await waitFor(() => f.fake.created.length === 2)).toBe(true);
    // The paused relay's agent has finished meanwhile; its answer waits in the pipe.
    expect(await waitFor(() => f.events().some((e) => e.ev === 'end' && e.ppid === pausedPid))).toBe(true);

    process.kill(pausedPid, 'SIGCONT');
    paused = undefined;
    const pausedHome = f.homes[holder] as Home;
    // Its run's finish is refused by the fence (the lease's epoch moved), and it says so.
    expect(
      await waitFor(() =>
        relayLogLines(pausedHome.dir).some(
          (l) => l.msg === 'the lease of the chat moved to another process: this run writes nothing more',
        ),
      ),
      JSON.stringify(relayLogLines(pausedHome.dir)),
    ).toBe(true);
    // Back at work: a message that reaches the resumed relay is answered, once, after the others.
    const third = await twilioPost(
      f.urls[holder] as string,
      smsParams({ Body: 'after the resume', MessageSid: `SM${'0'.repeat(32)}` }),
    );
    expect(third.status).toBe(200);
    expect(await waitFor(() => f.fake.created.length >= 3)).toBe(true);
    expect(f.fake.created.map((m) => m.body)).toEqual([
      `reply: ${text}`,
      'reply: after the takeover',
      'reply: after the resume',
    ]);
    const sent = async () =>
      (await queryRows<{ status: string }>(url, 'SELECT status FROM outbox')).every(
        (r) => r.status === 'sent',
      );
    for (const end = Date.now() + 20_000; !(await sent()) && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 100));
    expect(await queryRows(url, 'SELECT status FROM outbox ORDER BY id')).toEqual(
      Array(3).fill({ status: 'sent' }),
    );
    // Two runs of the first message (the cut one, then the successor's), one of each other.
    const starts = f
      .events()
      .filter((e) => e.ev === 'start')
      .map((e) => [e.prompt, e.ppid === pausedPid]);
    expect(starts).toEqual([
      [text, true],
      [text, false],
      ['after the takeover', false],
      ['after the resume', expect.any(Boolean)],
    ]);
    expect(await queryRows(url, 'SELECT message_id, status FROM inbox ORDER BY id')).toEqual([
      { message_id: `SM${'e'.repeat(32)}`, status: 'done' },
      { message_id: `SM${'f'.repeat(32)}`, status: 'done' },
      { message_id: `SM${'0'.repeat(32)}`, status: 'done' },
    ]);
  }, 90_000);
});
