// Every captured fixture (fixtures/agents/<kind>/*.json, real CLI output) through the same mapping
// runCommandReply uses. A new capture without an expectation here fails the suite.
import { describe, expect, it } from 'vitest';
import { textsOf } from '../../src/agents/common.js';
import { getSpec } from '../../src/agents/registry.js';
import { parsePlainText } from '../../src/agents/text.js';
import type { AgentKind, AgentResult, RunOutput } from '../../src/agents/types.js';
import { extractMedia } from '../../src/media/parse.js';
import { toAgentResult } from '../../src/runner/run-command-reply.js';
import { type Capture, linesOf, loadCaptures, spawnResultOf } from './fixtures.js';

type Expect =
  | { type: 'ok'; text: string; media: readonly string[]; progress?: string[]; sessionId?: string }
  | { type: 'error'; kind: string; sessionId?: string };

const chart = { type: 'ok', text: 'Here is your chart.', media: ['./chart.png'] } as const;
const files = {
  type: 'ok',
  text: 'Here you go.\n```\nMEDIA: ./not-this.png\n```\nAnd also:',
  media: ['./a.png', './b file.pdf'],
} as const;
const err = (kind: string, sessionId?: string): Expect => ({
  type: 'error',
  kind,
  ...(sessionId ? { sessionId } : {}),
});

const EXPECTED: Record<string, Expect> = {
  'claude/new': { ...chart, sessionId: '11111111-2222-4333-8444-555555555555' },
  'claude/new-json': { ...chart, sessionId: '22222222-2222-4333-8444-555555555555' },
  'claude/resume': { ...chart, sessionId: '11111111-2222-4333-8444-555555555555' },
  'claude/media': { ...files, sessionId: '33333333-2222-4333-8444-555555555555' },
  'claude/tool': { ...chart, progress: ['Let me check.'], sessionId: '44444444-2222-4333-8444-555555555555' },
  // API_TIMEOUT_MS=3000 against a server that never answers: claude's own `Request timed out`.
  'claude/provider-timeout': err('timeout', '88888888-2222-4333-8444-555555555555'),
  'claude/provider-timeout-json': err('timeout', '99999999-2222-4333-8444-555555555555'),
  'claude/provider-timeout-text': err('timeout', 'aaaaaaaa-2222-4333-8444-555555555555'),
  // A stream that stalls after its headers: codex's own stream_idle_timeout_ms gives up.
  'codex/provider-idle-timeout': err('timeout', '01a2161c-9259-7432-a96a-06319b7b87a4'),
  // codex without --json: the reply on stdout, the session id only in the stderr header.
  'codex/new-text': { ...chart, sessionId: '01a21601-e7fd-7b41-a344-f49480d57c86' },
  'codex/resume-text': { ...chart, sessionId: '01a21601-e7fd-7b41-a344-f49480d57c86' },
  'claude/auth': err('auth', '55555555-2222-4333-8444-555555555555'),
  'claude/server-error': err('overloaded', '66666666-2222-4333-8444-555555555555'),
  'claude/stale-session': err('session_not_found', '9f0e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f'),
  'claude/hang': err('timeout', '77777777-2222-4333-8444-555555555555'),
  'claude/dashdash': { ...chart, sessionId: '7d51a2d8-4f2f-4c81-95a8-e96fcbe2baac' },

  'codex/new': { ...chart, sessionId: '01a20190-fe4f-7cd0-b4a2-d1ed84ae9809' },
  'codex/resume': { ...chart, sessionId: '01a20190-fe4f-7cd0-b4a2-d1ed84ae9809' },
  'codex/media': { ...files, sessionId: '01a20191-1f80-7fe0-9866-479ab84c527b' },
  'codex/tool': { ...chart, progress: [], sessionId: '01a20191-2172-7810-a8b8-8df904d0e1fe' },
  'codex/reasoning': { ...chart, sessionId: '01a20191-a2c0-7d63-abd1-1eb8803ed0d9' },
  'codex/auth': err('auth', '01a20191-23d5-7042-9b55-f0d1256c5aea'),
  'codex/server-error': err('overloaded', '01a20191-3dd4-7882-8310-6377fbb1a993'),
  'codex/server-error-retries': err('overloaded', '01a20191-4032-7080-9a6c-182998990735'),
  'codex/stale-session': err('session_not_found'),
  'codex/hang': err('timeout', '01a20191-a598-7a20-93f2-c2f787ed8ace'),
  'codex/dashdash': { ...chart, sessionId: '01a20191-ba2e-7fc1-b4b7-50dee9422947' },
  // No credentials, offline: codex retries until our timeout (the runner's trouble watch stops it
  // sooner: test/runner/trouble.test.ts). Not a run: `codex login status` on that machine.
  'codex/no-credentials': err('timeout', '01a221df-5562-7242-b4ac-d79a81f700a6'),
  'codex/login-status-no-credentials': err('auth'),

  'pi/new': { ...chart, sessionId: '01a20191-e649-7776-b19a-408a321bef54' },
  'pi/resume': { ...chart, sessionId: '01a20191-e649-7776-b19a-408a321bef54' },
  'pi/media': { ...files, sessionId: '01a20192-0a90-74bd-807a-89edc85d9ae3' },
  'pi/tool': { ...chart, progress: [], sessionId: '01a20192-1135-7278-9140-77e09d6e5be0' },
  'pi/reasoning': { ...chart, sessionId: '01a20192-742d-7759-a992-7489e4a1ef2d' },
  // pi exits 0 on API errors: the assistant message's stopReason decides.
  'pi/auth': err('auth', '01a20192-1763-713c-8572-cce1a2bb9c05'),
  'pi/server-error': err('overloaded', '01a20192-1e19-70f5-9e1c-8114dfb706f3'),
  'pi/stale-session': err('session_not_found'),
  'pi/hang': err('timeout', '01a20192-796f-71ef-8cb7-66f17a48e01a'),
  'pi/dashdash': err('exit'),
  'pi/no-credentials': err('auth', '01a22373-1a5f-7196-b94e-c6f089f62732'),

  // Not a run: `opencode auth list` on a machine with no credentials (read by the trouble watch,
  // test/runner/trouble.test.ts); as a run's output it is nothing a parser takes for an answer.
  'opencode/auth-list-no-credentials': err('unparseable'),
  // No credentials, offline: its own error after about 80 s of retries (the runner's trouble watch
  // ends the run at the first failed try instead: test/runner/trouble.test.ts).
  'opencode/no-credentials': err('exit', 'ses_ddbf93933ffeI3IjpAYZnyTkUe'),
  'opencode/new': { ...chart, sessionId: 'ses_dfe6d2d5cffeKIUcFNUBC0L0np' },
  'opencode/resume': { ...chart, sessionId: 'ses_dfe6d2d5cffeKIUcFNUBC0L0np' },
  'opencode/media': { ...files, sessionId: 'ses_dfe6cff27ffe5Iw7uHC5c2PSaZ' },
  'opencode/tool': { ...chart, progress: [], sessionId: 'ses_dfe6cf3dcffenbrsVHFSoBPKwR' },
  'opencode/reasoning': { ...chart, sessionId: 'ses_dfe6cc606ffeHNV6JUMiRdOKD3' },
  'opencode/auth': err('auth', 'ses_dfe6ce6a8ffeKHHQUdaIF2OGlI'),
  'opencode/server-error-403': err('auth', 'ses_dfe6cd9ddffeSbY4eHYw4t4ma9'),
  'opencode/server-error': err('overloaded', 'ses_dfe6c9529ffeUtS1w5Z1a0boNw'),
  'opencode/stale-session': err('session_not_found'),
  'opencode/hang': err('timeout'),
  'opencode/dashdash': { ...chart, sessionId: 'ses_dfe6ca2b6ffeg7cQB7BYAqA9B2' },

  'gemini/new': { ...chart, sessionId: 'agentwire-chat-1' },
  'gemini/new-json': { ...chart, sessionId: 'agentwire-chat-2' },
  'gemini/resume': { ...chart, sessionId: 'agentwire-chat-1' },
  'gemini/media': { ...files, sessionId: 'agentwire-media' },
  'gemini/tool': { ...chart, progress: ['Let me check.'], sessionId: 'agentwire-tool' },
  'gemini/auth': err('auth', 'agentwire-auth'),
  'gemini/no-credentials': err('auth'),
  'gemini/server-error-400': err('auth', 'agentwire-400'),
  'gemini/server-error-403': err('auth', 'agentwire-403'),
  // Killed by our timeout while still retrying; gemini then exits 0, which is not success.
  'gemini/server-error': err('timeout', '8e62c115-bf55-4968-8cb6-b5c105751ec1'),
  // The same 500s with room for every retry: gemini gives up after ~195 s, exit 244 (500 & 255).
  'gemini/server-error-final': err('overloaded', 'agentwire-500'),
  'gemini/stale-session': err('session_not_found'),
  'gemini/stale-session-known-project': err('session_not_found'),
  'gemini/hang': err('timeout', 'agentwire-hang'),
  'gemini/dashdash': err('exit'),
  'gemini/dashdash-positional': err('exit'),
  'gemini/dashdash-prompt-equals': { ...chart, sessionId: '264ee77a-e966-48c8-82a8-678f1eeb9055' },
  'gemini/positional-no-dashdash': { ...chart, sessionId: '69490a02-42a5-4b57-84b3-9d2d608eb369' },
};

const captures = loadCaptures();
/** Captures made without structured output (`agent parse --format text` reads these). */
const isText = (c: Capture) =>
  (c.kind === 'codex' && !c.argv.includes('--json')) ||
  (c.kind === 'claude' && !c.argv.includes('--output-format'));
const structured = captures.filter((c) => !isText(c));
const resultOf = (c: Capture): AgentResult => {
  if (!isText(c)) return toAgentResult(getSpec(c.kind as AgentKind), { argv: c.argv }, spawnResultOf(c));
  // claude's session id in text mode is the --session-id it was given, as the runner supplies it.
  const given = c.argv[c.argv.indexOf('--session-id') + 1];
  const parsed = parsePlainText(getSpec(c.kind), runOutput(c, linesOf(c.stdout)));
  const sessionId = (c.argv.includes('--session-id') ? given : undefined) ?? parsed.sessionId;
  return { ...parsed, ...(sessionId ? { sessionId } : {}), durationMs: 1 };
};

describe('parsers over real captures', () => {
  it('has captures of all five CLIs, each with an expectation', () => {
    expect(new Set(captures.map((c) => c.kind))).toEqual(
      new Set(['claude', 'codex', 'pi', 'opencode', 'gemini']),
    );
    expect(captures.map((c) => `${c.kind}/${c.name}`).filter((k) => !EXPECTED[k])).toEqual([]);
  });

  it.each(captures.map((c) => [`${c.kind}/${c.name}`, c] as const))('%s', (key, c) => {
    const want = EXPECTED[key];
    if (!want) throw new Error(`no expectation for ${key}`);
    const got = resultOf(c);
    if (want.type === 'ok') {
      expect(got).toMatchObject({ type: 'ok', text: want.text, media: want.media, truncated: false });
      if (got.type === 'ok') expect(got.progress).toEqual(want.progress ?? []);
    } else {
      expect(got).toMatchObject({ type: 'error', kind: want.kind });
      if (got.type === 'error') expect(got.message.length).toBeGreaterThan(10);
      // The CLI gave up on its provider (not our runner's timeout): the message says which.
      if (got.type === 'error' && want.kind === 'timeout' && !c.timed_out)
        expect(got.message).toContain('model provider did not answer in time');
    }
    expect(got.sessionId).toBe(want.sessionId);
  });

  it('tells the owner how to sign gemini in when it has no credentials at all', () => {
    const c = captures.find((x) => x.kind === 'gemini' && x.name === 'no-credentials');
    expect(c && resultOf(c)).toMatchObject({
      message:
        'Gemini CLI is not signed in on this machine: run `gemini` once to sign in (or set GEMINI_API_KEY) there, then send your message again.',
    });
  });

  it('tells the owner how to sign pi in when it has no credentials at all', () => {
    const c = captures.find((x) => x.kind === 'pi' && x.name === 'no-credentials');
    expect(c && resultOf(c)).toMatchObject({
      message:
        "pi is not signed in on this machine: run `pi` and sign in with /login (or set its provider's API key) there, then send your message again.",
    });
  });

  it('never turns reasoning or thinking into text or media', () => {
    for (const c of captures.filter((c) => c.name === 'reasoning')) {
      expect(c.stdout).toContain('secret.png');
      const r = resultOf(c);
      expect(JSON.stringify(r)).not.toContain('secret');
    }
  });

  it('tolerates warnings, garbage and a half-written line around valid output', () => {
    for (const c of structured.filter((c) => !c.timed_out)) {
      const spec = getSpec(c.kind as AgentKind);
      const clean = spec.parse(runOutput(c, linesOf(c.stdout)));
      const lines = linesOf(c.stdout);
      // NDJSON gets junk between its lines too; gemini's pretty-printed json mode only around it.
      const ndjson = lines.every((l) => !l.trim() || /^\{.*\}$/.test(l.trim()));
      const noisy = [
        'Warning: 256-color support not detected.',
        '\u001b[33mnot json\u001b[0m',
        ...(ndjson ? lines.flatMap((l) => [l, '{"broken":']) : lines),
        '{"type":"result","status":"succ',
      ];
      expect(spec.parse(runOutput(c, noisy)), `${c.kind}/${c.name}`).toEqual(clean);
    }
  });

  it.each(['claude', 'codex', 'pi', 'opencode', 'gemini'] as AgentKind[])(
    '%s: exit 0 with nothing usable is unparseable, never raw output',
    (kind) => {
      const spec = getSpec(kind);
      for (const lines of [[], ['Warning: something'], ['Warning: x', '{"type":"result","resu']]) {
        const r = spec.parse({ stdoutLines: lines, stderr: '', exitCode: 0, signal: null, truncated: false });
        expect(r, JSON.stringify(lines)).toMatchObject({ type: 'error', kind: 'unparseable' });
      }
    },
  );

  it('parses the same from only the lines a spec keeps (pi drops streaming updates)', () => {
    for (const c of structured) {
      const spec = getSpec(c.kind as AgentKind);
      const all = linesOf(c.stdout);
      const kept = spec.keepLine ? all.filter((l) => spec.keepLine!(l)) : all;
      expect(spec.parse(runOutput(c, kept)), `${c.kind}/${c.name}`).toEqual(spec.parse(runOutput(c, all)));
    }
  });

  it('streams the same earlier assistant messages the final parse calls progress', () => {
    for (const c of structured) {
      const r = resultOf(c);
      if (r.type !== 'ok') continue;
      const next = getSpec(c.kind as AgentKind).messageStream();
      const streamed = textsOf(linesOf(c.stdout).flatMap((l) => next(l)));
      const earlier = streamed.slice(0, -1).map((m) => extractMedia(m).text);
      expect(earlier, `${c.kind}/${c.name}`).toEqual(r.progress);
    }
  });
});

function runOutput(c: Capture, lines: string[]): RunOutput {
  return { stdoutLines: lines, stderr: c.stderr, exitCode: c.exit_code, signal: c.signal, truncated: false };
}
