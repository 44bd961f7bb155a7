// Approvals from the phone end to end: the built relay (`agentwire relay` from dist/, a
// real child process) takes signed Twilio webhooks; its agent is a warm fake claude
// (test/fixtures/fake-claude-stream.mjs, mode `ask`) under `agent.permissions: 'ask'`, which asks
// can_use_tool for `Bash: touch x` mid-turn and replies with what it was answered ("answered allow"
// or "answered deny"). Nothing stands in for the driver, the Approver, the routing or the store: the
// question reaches the (fake) Twilio REST API, the answer comes back as a webhook, and the CLI's own
// reply proves what it was told. Needs `npm run build` first.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAIN } from './helpers.js';
import { OWNER, type Rig, startRig } from './interact-rig.js';

const CLAUDE = join(import.meta.dirname, '..', 'fixtures', 'fake-claude-stream.mjs');
const ASKED = 'claude wants to run: touch x\n1 allow once · 2 allow for this chat · 3 deny';
const OTHER = '+15557654321';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

const warmAsk = (over: Record<string, unknown> = {}) => ({
  kind: 'claude',
  mode: 'warm',
  permissions: 'ask',
  command: [process.execPath, CLAUDE],
  ...over,
});
/** The fake replies "turn N: <text>" to a message it was handed as a prompt: an answer never is. */
const ranAsPrompt = (r: Rig, to = OWNER) => r.bodies(to).filter((b) => b.startsWith('turn '));
const count = (r: Rig, body: string, to = OWNER) => r.bodies(to).filter((b) => b === body).length;

describe('approvals from the phone, through the built relay and a signed Twilio webhook', () => {
  it('the owner answers 1 (once, despite a redelivered webhook), 2 (remembered until /approvals reset) and 3 (denied)', async () => {
    // This owner asks again and answers faster than a person reads: the settle time after a question
    // changes (test/hostile/approvals.test.ts) would hold their 2 back, so it is off here.
    const r = await startRig({ agent: warmAsk(), extra: { permissions: { settleSeconds: 0 } } });
    rig = r;
    const relay = r.start();

    // 1: allowed once. Twilio redelivers the answer's webhook: it answers nothing twice.
    expect(await r.sms('ask first')).toBe(200);
    await r.sent(ASKED);
    expect(r.bodies()).not.toContain('answered allow');
    const one = 'SM00000000000000000000000000000001';
    expect(await r.sms('1', { messageSid: one })).toBe(200);
    expect(await r.sms('1', { messageSid: one })).toBe(200);
    await r.sent('answered allow');
    await r.sent('Allowed once: claude wants to run: touch x.');

    // Once means once: the next request is asked again. 2: allowed, and remembered for the chat.
    expect(await r.sms('ask second')).toBe(200);
    await r.sent(ASKED, { times: 2 });
    expect(await r.sms('2')).toBe(200);
    await r.sent('answered allow', { times: 2 });
    await r.sent('Allowed for this chat from now on: shell (/approvals reset to undo).');
    // The next request of that kind is not asked: the CLI is answered allow at once.
    expect(await r.sms('ask third')).toBe(200);
    await r.sent('answered allow', { times: 3 });
    expect(count(r, ASKED)).toBe(2);
    expect(await r.sms('/approvals')).toBe(200);
    await r.sent(
      'Allowed for this chat: shell (/approvals reset forgets them).\nNothing is waiting for an answer.',
    );
    expect(await r.sms('/approvals reset')).toBe(200);
    await r.sent('Forgot 1 allowance: the agent asks again.');

    // Forgotten: asked again. 3: denied, and the agent still replies.
    expect(await r.sms('ask fourth')).toBe(200);
    await r.sent(ASKED, { times: 3 });
    expect(await r.sms('3')).toBe(200);
    await r.sent('answered deny');
    await r.sent('Denied: claude wants to run: touch x.');

    // Each answer was one acknowledgement, never a message the agent ran, and one warm process served all.
    expect(count(r, 'Allowed once: claude wants to run: touch x.')).toBe(1);
    expect(count(r, 'answered allow')).toBe(3);
    expect(ranAsPrompt(r)).toEqual([]);
    expect(r.home.events()).toHaveLength(1);
    relay.child.kill('SIGTERM');
    expect((await relay.exit).code).toBe(0);
  }, 120_000);

  it("a non-approver's 1 in their own chat is refused with one line; unanswered, the request is denied on time and the turn still replies, though the run's timeout is shorter than the wait", async () => {
    const r = await startRig({
      // The wait (9 s) is longer than the turn's limit (2 s): the turn timer leaves out person waits.
      // OTHER is a member: a member's runs ask only where the member profile says so.
      agent: warmAsk({ timeoutSeconds: 2, profiles: { member: { permissions: 'ask' } } }),
      extra: { permissions: { timeoutMinutes: 0.15 } },
      twilio: { allowFrom: [OWNER, OTHER] },
    });
    rig = r;
    r.start();
    expect(await r.sms('ask please', { from: OTHER })).toBe(200);
    await r.sent(ASKED, { to: OTHER });
    expect(await r.sms('1', { from: OTHER })).toBe(200);
    await r.sent('Only an approver can answer this (permissions.approvers).', { to: OTHER });
    expect(r.bodies(OTHER)).not.toContain('answered allow');

    await r.sent('No answer in 9 s: denied. (claude wants to run: touch x)', { to: OTHER, ms: 30_000 });
    await r.sent('answered deny', { to: OTHER, ms: 30_000 });
    expect(r.bodies(OTHER)).not.toContain('answered allow');
    expect(r.bodies(OTHER).some((b) => /stopped waiting|timed out|took too long/i.test(b))).toBe(false);
    expect(ranAsPrompt(r, OTHER)).toEqual([]);
    // The owner was asked nothing: the request belongs to the chat whose run asked it.
    expect(r.bodies(OWNER)).toEqual([]);
  }, 180_000);

  it('a relay killed (SIGKILL) with an approval waiting: the restarted relay denies it and tells the chat', async () => {
    const r = await startRig({ agent: warmAsk() });
    rig = r;
    const first = r.start();
    expect(await r.sms('ask before the crash')).toBe(200);
    await r.sent(ASKED);
    first.child.kill('SIGKILL');
    await first.exit;

    r.start();
    await r.sent('The relay restarted: claude wants to run: touch x: denied.');
    // The run the crash cut off is redone from its message: the CLI asks again, and is answered.
    await r.sent(ASKED, { times: 2 });
    expect(await r.sms('3')).toBe(200);
    await r.sent('answered deny');
    expect(r.bodies()).not.toContain('answered allow');
    expect(ranAsPrompt(r)).toEqual([]);
    expect(await r.sms('/approvals')).toBe(200);
    await r.sent(
      'Nothing is allowed for this chat: the agent asks each time.\nNothing is waiting for an answer.',
    );
  }, 180_000);

  // The other three warm drivers, each against its own fake CLI asking its own protocol's way:
  // codex's command approval, ACP's session/request_permission, pi's confirm dialog.
  it.each([
    { kind: 'codex', fake: 'fake-codex-app-server.mjs', say: 'ask', allowed: 'decision: "accept"' },
    { kind: 'acp', fake: 'fake-acp-agent.mjs', say: 'ask', allowed: 'permission: yes' },
    {
      kind: 'pi',
      fake: 'fake-pi-rpc.mjs',
      say: 'confirm',
      allowed: 'confirm: {"type":"extension_ui_response","id":"ui-1","confirmed":true}',
    },
  ])(
    "$kind: the request reaches the owner's phone and their 1 allows it",
    async ({ kind, fake, say, allowed }) => {
      const r = await startRig({
        agent: warmAsk({
          kind,
          command: [process.execPath, join(import.meta.dirname, '..', 'fixtures', fake)],
        }),
      });
      rig = r;
      r.start();
      expect(await r.sms(say)).toBe(200);
      await r.sent(new RegExp(`^${kind} wants to .+\n1 allow once · 2 allow for this chat · 3 deny$`));
      expect(r.bodies()).not.toContain(allowed);
      expect(await r.sms('1')).toBe(200);
      await r.sent(allowed);
      await r.sent(/^Allowed once: /);
      expect(r.bodies().filter((b) => b.startsWith('turn '))).toEqual([]);
    },
    60_000,
  );
});
