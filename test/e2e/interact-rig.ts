// A built relay process (`agentwire relay` from dist/) on a temp state folder, taking signed Twilio
// webhooks on 127.0.0.1 and replying through the fake Twilio REST server, with a warm fake CLI as
// the agent: the rig of the end-to-end tests of approvals and ask_user from the phone. The
// relay is a real child process, so a test can SIGKILL it and start another on the same folder and
// port. Only processes this rig started (the relays, and the fake CLIs that logged their PID) are
// stopped, by PID.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import {
  type FakeTwilio,
  fakeTwilioSection,
  sid,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { postWhenUp, smsParams } from '../channels/twilio/helpers/harness.js';
import {
  alive,
  completeLines,
  freePort,
  type Home,
  MAIN,
  makeHome,
  type Proc,
  spawnNode,
  waitFor,
} from './helpers.js';

export const OWNER = '+15551234567';

export interface Rig {
  home: Home;
  fake: FakeTwilio;
  url: string;
  /** A relay process on the rig's state folder and webhook port. */
  start(): Proc;
  /** A signed SMS from `from` (default the owner), with a fresh MessageSid unless one is given. */
  sms(body: string, opts?: { from?: string; messageSid?: string }): Promise<number>;
  /** What the fake Twilio API was asked to send to `to` (default the owner), in order. */
  bodies(to?: string): string[];
  /** Waits until a message to `to` satisfies `match`; fails the test with the relay's stderr. */
  sent(match: string | RegExp, opts?: { to?: string; ms?: number; times?: number }): Promise<void>;
  /** Stops every process the rig started. */
  close(): Promise<void>;
}

/** The fake CLIs write one line per process start, with their PID, to this file (see `agentEnv`). */
const pidsOf = (file: string): number[] =>
  existsSync(file)
    ? completeLines(readFileSync(file, 'utf8')).map((l) => (JSON.parse(l) as { pid: number }).pid)
    : [];

export async function startRig(opts: {
  agent: Record<string, unknown>;
  extra?: Record<string, unknown>;
  twilio?: Record<string, unknown>;
}): Promise<Rig> {
  const fake = await startFakeTwilio();
  const port = await freePort();
  const home = makeHome({
    twilio: fakeTwilioSection(fake, port, opts.twilio),
    console: { enabled: false },
    ...opts.extra,
    agent: opts.agent,
  });
  // Both kinds of fake log their starts (with their PID) to the home's fake log.
  const raw = JSON.parse(readFileSync(home.configFile, 'utf8'));
  raw.agent.env = { ...raw.agent.env, FAKE_CLAUDE_LOG: home.fakeLog };
  writeFileSync(home.configFile, JSON.stringify(raw, null, 2));
  const env = { ...home.env, TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '' };
  const procs: Proc[] = [];
  const url = `http://127.0.0.1:${port}/twilio/inbound`;
  const bodies = (to = OWNER) => fake.created.filter((m) => m.to === to).map((m) => m.body ?? '');
  const stderr = () => procs.map((p) => p.stderr()).join('\n');
  return {
    home,
    fake,
    url,
    start() {
      const p = spawnNode([MAIN, 'relay'], env);
      procs.push(p);
      return p;
    },
    async sms(body, o = {}) {
      const params = smsParams({ MessageSid: o.messageSid ?? sid(), Body: body, From: o.from ?? OWNER });
      return (await postWhenUp(url, params)).status;
    },
    bodies,
    async sent(match, o = {}) {
      const hits = () =>
        bodies(o.to).filter((b) => (typeof match === 'string' ? b === match : match.test(b))).length;
      // A bound, not a delay: the first message of a warm turn waits on the fake CLI and its
      // `agentwire mcp` starting, which took over 20 s once with CI's suites run side by side.
      const ok = await waitFor(() => hits() >= (o.times ?? 1), o.ms ?? 45_000);
      expect(
        ok,
        `no message ${match} to ${o.to ?? OWNER}; sent: ${JSON.stringify(bodies(o.to))}\n${stderr()}`,
      ).toBe(true);
    },
    async close() {
      for (const p of procs)
        if (p.child.exitCode === null && p.child.signalCode === null) {
          p.child.kill('SIGKILL');
          await p.exit;
        }
      for (const pid of pidsOf(home.fakeLog)) if (alive(pid)) process.kill(pid, 'SIGKILL');
      await fake.close();
      home.cleanup();
    },
  };
}
