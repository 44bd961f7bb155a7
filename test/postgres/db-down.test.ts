// The store's PostgreSQL server goes away under a running relay (the built CLI) and comes back: a
// Twilio webhook that arrives meanwhile is answered 503 (Twilio retries it, with `#rc=3&rp=all` on
// the webhook URL), nothing is lost, the relay says so in one clear line, and once the server is
// back the retried delivery is taken and answered once. A cluster of its own (test/support/postgres.ts),
// stopped and started with pg_ctl (`outage-rig.ts`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postWhenUp, smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { waitFor } from '../e2e/helpers.js';
import { type OutageRig, startOutageRig } from './outage-rig.js';

let rig: OutageRig | undefined;
beforeAll(async () => {
  rig = await startOutageRig();
}, 120_000);
afterAll(async () => {
  await rig?.stop();
});

describe('the PostgreSQL server goes away under a running relay', () => {
  it('answers 503 meanwhile, logs it once, and takes and answers the retried message once it is back', async () => {
    const { cluster, fake, home, inbound, relay, logLines } = rig as OutageRig;
    const first = await postWhenUp(inbound, smsParams({ Body: 'before', MessageSid: `SM${'b'.repeat(32)}` }));
    expect(first.status, relay.stderr()).toBe(200);
    expect(await waitFor(() => fake.created.length === 1), relay.stderr()).toBe(true);

    await cluster.pause();
    const during = smsParams({ Body: 'during the outage', MessageSid: `SM${'c'.repeat(32)}` });
    const refused = await twilioPost(inbound, during);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    // A second delivery meanwhile (Twilio's retry) is refused the same way; the relay stays up.
    expect((await twilioPost(inbound, during)).status).toBe(503);
    expect(relay.child.exitCode).toBe(null);

    await cluster.resume();
    // Twilio retries until it gets a 2xx: the first tries after the restart may still meet the
    // connections the server dropped.
    let status = 0;
    for (const end = Date.now() + 45_000; status !== 200 && Date.now() < end; )
      status = (await twilioPost(inbound, during)).status;
    expect(status, relay.stderr()).toBe(200);
    expect(await waitFor(() => fake.created.length === 2), relay.stderr()).toBe(true);
    // One more delivery of the same MessageSid after it was taken: a duplicate, no second run.
    expect((await twilioPost(inbound, during)).status).toBe(200);
    const bodies = () => fake.created.map((m) => m.body);
    expect(bodies()).toEqual(['reply: before', 'reply: during the outage']);
    expect(home.events().filter((e) => e.ev === 'start')).toHaveLength(2);

    expect(
      await waitFor(() => logLines().some((l) => l.msg?.startsWith('the store is reachable again'))),
    ).toBe(true);
    const about = logLines().filter((l) => l.msg?.startsWith('the store cannot be reached'));
    expect(about, JSON.stringify(logLines().slice(-40))).toHaveLength(1);
  });
});
