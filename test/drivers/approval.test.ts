// The wait for a person (drivers/approval.ts), the text a phone shows, and the ask modes of the ACP
// CLIs (drivers/ask-mode.ts), table-tested. The per-protocol questions: questions.test.ts.
import { describe, expect, it } from 'vitest';
import type { ApprovalQuestion, Approver } from '../../src/agents/types.js';
import {
  decide,
  NO_APPROVER,
  oneLine,
  POLICY_DENY,
  shortPath,
  type Verdict,
} from '../../src/drivers/approval.js';
import { GEMINI_ASK_ARGS, opencodeAskConfig } from '../../src/drivers/ask-mode.js';
import { forgetCredential, registerCredential } from '../../src/log.js';

const q: ApprovalQuestion = { toolKind: 'shell', summary: 'run: ls' };
const answering =
  (v: Awaited<ReturnType<Approver>>): Approver =>
  async () =>
    v;

describe('decide', () => {
  it.each<[string, Parameters<typeof decide>[1], ApprovalQuestion | undefined, Verdict]>([
    ['allow answers alone', { policy: 'allow' }, q, { type: 'allow_once' }],
    ['deny answers alone', { policy: 'deny' }, q, { type: 'deny', reason: POLICY_DENY }],
    [
      'allow never asks even with an Approver',
      {
        policy: 'allow',
        approve: answering({ type: 'deny', reason: 'x' }),
        signal: new AbortController().signal,
      },
      q,
      { type: 'allow_once' },
    ],
    ['ask without an Approver denies', { policy: 'ask' }, q, { type: 'deny', reason: NO_APPROVER }],
    [
      'ask passes the person’s allow_chat through',
      { policy: 'ask', approve: answering({ type: 'allow_chat' }), signal: new AbortController().signal },
      q,
      { type: 'allow_chat' },
    ],
    [
      'ask passes the person’s deny and its reason',
      {
        policy: 'ask',
        approve: answering({ type: 'deny', reason: 'no' }),
        signal: new AbortController().signal,
      },
      q,
      { type: 'deny', reason: 'no' },
    ],
    [
      'a request that is no question is declined, even under allow',
      { policy: 'allow' },
      undefined,
      { type: 'deny', reason: POLICY_DENY },
    ],
    [
      'an aborted turn cancels at once',
      { policy: 'allow', signal: AbortSignal.abort() },
      q,
      { type: 'cancelled' },
    ],
    [
      'an Approver that rejects (against its contract) grants nothing',
      { policy: 'ask', approve: () => Promise.reject(new Error('x')), signal: new AbortController().signal },
      q,
      { type: 'deny', reason: NO_APPROVER },
    ],
    [
      'an answer of no known type grants nothing',
      {
        policy: 'ask',
        approve: answering({ type: 'allow_always' } as never),
        signal: new AbortController().signal,
      },
      q,
      { type: 'deny', reason: NO_APPROVER },
    ],
    [
      'no answer at all grants nothing',
      { policy: 'ask', approve: answering(undefined as never), signal: new AbortController().signal },
      q,
      { type: 'deny', reason: NO_APPROVER },
    ],
  ])('%s', async (_name, asking, question, expected) => {
    expect(await decide(question, asking)).toEqual(expected);
  });

  it('a stop ends the wait with cancelled though the Approver never answers', async () => {
    const ctl = new AbortController();
    let given: AbortSignal | undefined;
    const p = decide(q, {
      policy: 'ask',
      signal: ctl.signal,
      approve: (_q, s) => {
        given = s;
        return new Promise(() => {});
      },
    });
    await new Promise((r) => setTimeout(r, 5));
    expect(given).toBe(ctl.signal);
    ctl.abort();
    expect(await p).toEqual({ type: 'cancelled' });
  });
});

describe('text for a phone', () => {
  it.each([
    ['a\n  b\tc', 120, 'a b c'],
    ['x'.repeat(130), 120, `${'x'.repeat(77)} … ${'x'.repeat(40)}`],
    [`echo ${'a'.repeat(200)}; rm -rf ~`, 100, `echo ${'a'.repeat(59)} … ${'a'.repeat(23)}; rm -rf ~`],
    ['rm \u001b[8mhidden\u001b[0m x', 120, 'rm [8mhidden[0m x'],
    ['echo safe \u202e~ fr- mr', 120, 'echo safe ~ fr- mr'],
    ['a\u200bb', 120, 'ab'],
  ])('oneLine(%j)', (text, max, out) => {
    expect(oneLine(text, max)).toBe(out);
  });
  it('masks a registered credential before it cuts, so no half of one is left on either side', () => {
    const secret = 'zzAPPROVALzz-7c2d9e4f1a';
    registerCredential(secret);
    try {
      // The cut falls inside the credential: 100 - 33 - 3 = 64 characters are kept before the "…".
      const line = oneLine(`curl -u ${'a'.repeat(50)}${secret} ${'b'.repeat(80)}`, 100);
      expect(line).not.toContain(secret.slice(0, 6));
      expect(line).toContain('[redac');
    } finally {
      forgetCredential(secret);
    }
  });
  it.each([
    ['/w/src/a.ts', '/w', 'src/a.ts'],
    ['/w/src/a.ts', '/w/', 'src/a.ts'],
    ['/work/a.ts', '/w', '/work/a.ts'],
    ['/etc/passwd', '/w', '/etc/passwd'],
    ['/w/a', undefined, '/w/a'],
  ])('shortPath(%s, %s)', (path, cwd, out) => {
    expect(shortPath(path, cwd)).toBe(out);
  });
});

describe('ask modes of the ACP CLIs', () => {
  it('gemini prompts for approval whatever the user’s settings say', () => {
    expect(GEMINI_ASK_ARGS).toEqual(['--approval-mode', 'default']);
  });

  const asks = { edit: 'ask', bash: 'ask', webfetch: 'ask', websearch: 'ask', external_directory: 'ask' };
  it.each<[string, string | undefined, unknown]>([
    [
      'none before',
      undefined,
      {
        permission: asks,
        agent: { build: { permission: asks }, plan: { permission: asks } },
        experimental: { continue_loop_on_deny: true },
      },
    ],
    [
      'other keys and other rules kept, ours win',
      JSON.stringify({
        model: 'm',
        permission: { bash: 'allow', read: 'deny' },
        agent: { build: { steps: 3 } },
        experimental: { continue_loop_on_deny: false },
      }),
      {
        model: 'm',
        permission: {
          bash: 'ask',
          read: 'deny',
          edit: 'ask',
          webfetch: 'ask',
          websearch: 'ask',
          external_directory: 'ask',
        },
        agent: { build: { steps: 3, permission: asks }, plan: { permission: asks } },
        // Said in the inline config already: kept.
        experimental: { continue_loop_on_deny: false },
      },
    ],
    [
      'a permission given as one word becomes the fallback rule',
      JSON.stringify({ permission: 'allow' }),
      {
        permission: { '*': 'allow', ...asks },
        agent: { build: { permission: asks }, plan: { permission: asks } },
        experimental: { continue_loop_on_deny: true },
      },
    ],
    ['not JSON', '{nope', undefined],
    ['JSON but not an object', '[1]', undefined],
  ])('opencode inline config: %s', (_name, existing, expected) => {
    const out = opencodeAskConfig(existing);
    expect(out === undefined ? undefined : JSON.parse(out)).toEqual(expected);
  });
});
