// The codex driver against the real `codex app-server` (pinned version, offline, fake model
// server). With AW_CAPTURE_CODEX=<fixtures/agents> every protocol message both ways is written to
// codex/warm/app-server-<case>.json: the fixtures are captured here, never typed.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { newSession } from '../../src/agents/resolve.js';
import { APP_SERVER_ARGS, codexDriver } from '../../src/drivers/codex.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { requests, scenario, stateDir, turn } from './harness.js';
import { type Capture, capturing, lastBody, saveCapture, step } from './warm-capture.js';
import {
  driverBase,
  type MakeOptions,
  type Started,
  type WarmCli,
  waitFor,
  warmScenarios,
} from './warm-suite.js';

const argv = ['codex', ...APP_SERVER_ARGS];

const save = (name: string, c: Capture, scenarioId: string): Promise<void> =>
  saveCapture(c, {
    out: process.env.AW_CAPTURE_CODEX,
    kind: 'codex',
    file: `app-server-${name}`,
    version: () =>
      execFileSync(join(inject('clisDir'), 'bin', 'codex'), ['--version'], { encoding: 'utf8' }).trim(),
    argv,
    scenario: scenarioId,
  });

const make = (
  state: string,
  base: string,
  c: Capture,
  o: MakeOptions & { settings?: { model?: string; thinking?: string; systemText?: string } } = {},
): Started => {
  const { options, marker } = driverBase('codex', state, base, c, argv, o.permission);
  return { d: codexDriver({ ...options, name: 'Codex', ...o.settings }), marker };
};

const CODEX: WarmCli = {
  kind: 'codex',
  idPrefix: 'codex-warm',
  make,
  save,
  resumes: 'thread',
  turns: {
    steer: {
      type: 'steered',
      text: 'steered into the hung turn',
      next: 'once',
      acked: (c) => c.messages.some((m) => m.dir === 'in' && isResponseTo(m.msg, c, 'turn/steer')),
    },
  },
  resume: { unknownId: '01a21605-0000-7000-8000-000000000000' },
  tools: [
    {
      title:
        'a shell tool under the deny policy runs as cold codex exec would (approval never, config sandbox)',
      id: 'tool',
      file: 'tool-deny',
      call: { name: 'exec_command', input: { cmd: 'touch made-by-tool' } },
      make: { permission: 'deny' },
      check: ({ state, c }) => {
        // approvalPolicy "never": codex asks nothing, as `codex exec` asks nothing.
        expect(c.messages.filter((m) => m.dir === 'in' && isRequest(m.msg))).toEqual([]);
        c.steps.push({ step: 'file written', result: existsSync(join(state, 'work', 'made-by-tool')) });
      },
      // The same tool call through cold `codex exec`, exactly as the relay runs it: same outcome.
      after: async ({ state, base }) => {
        const cold = stateDir('codex');
        const spec = getSpec('codex');
        const t = turn('codex', cold, base, 'run the tool', newSession(spec), 60_000);
        expect(await runCommandReply(spec, t.request)).toMatchObject({ type: 'ok', text: 'After the tool.' });
        expect(existsSync(join(state, 'work', 'made-by-tool'))).toBe(
          existsSync(join(cold, 'work', 'made-by-tool')),
        );
      },
    },
  ],
  auth: {},
};

describe('codex app-server driver with the real codex', () => {
  warmScenarios(CODEX);

  it('a steer reaches the running turn at its next model call, and is not repeated after it', async () => {
    const id = 'codex-warm-steer';
    const base = await scenario(id, {
      mode: 'tool',
      reply: 'After the tool.',
      tool: { name: 'exec_command', input: { cmd: 'sleep 3' } },
    });
    const state = stateDir('codex');
    const c = capturing();
    const { d } = make(state, base, c, { permission: 'allow' });
    try {
      await step(c, 'open new', d.open({ type: 'new' }));
      const before = (await requests(id)).length;
      const running = d.turn({ prompt: 'run the slow tool', timeoutMs: 60_000 });
      await waitFor(async () => (await requests(id)).length > before);
      expect(d.steer('a word mid-turn')).toEqual({ type: 'steered' });
      expect(await step(c, 'turn steered', running)).toMatchObject({ type: 'ok', text: 'After the tool.' });
      expect(await lastBody(id)).toContain('a word mid-turn');
      await scenario(id, { mode: 'ok', reply: 'Plain.' });
      await step(c, 'turn next', d.turn({ prompt: 'next', timeoutMs: 60_000 }));
      const starts = c.messages.filter((m) => m.dir === 'out' && method(m.msg) === 'turn/start');
      expect(JSON.stringify(starts.at(-1))).not.toContain('a word mid-turn');
    } finally {
      await d.close();
      await save('steer', c, id);
    }
  });

  it('takes the model, thinking and system text the cold flags give, on a new and a resumed thread', async () => {
    const id = 'codex-warm-settings';
    const base = await scenario(id, { mode: 'ok', reply: 'Configured.' });
    const state = stateDir('codex');
    const c = capturing();
    const system = `-Answer as agentwire-${process.pid}.`;
    const settings = { model: 'gpt-5.5', thinking: 'low', systemText: system };
    const first = make(state, base, c, { settings });
    const o = (await step(c, 'open new', first.d.open({ type: 'new' }))) as { type: 'ok'; sessionId: string };
    expect(o.type).toBe('ok');
    expect(await step(c, 'turn', first.d.turn({ prompt: 'hello', timeoutMs: 60_000 }))).toMatchObject({
      type: 'ok',
      text: 'Configured.',
    });
    await first.d.close();
    const body = (await requests(id)).at(-1)?.body as Record<string, unknown>;
    expect(body.model).toBe('gpt-5.5');
    expect(body.reasoning).toMatchObject({ effort: 'low' });
    expect(JSON.stringify(body)).toContain(system);
    const second = make(state, base, c, { settings });
    try {
      await step(c, 'open resume', second.d.open({ type: 'resume', id: o.sessionId }));
      await step(c, 'turn resumed', second.d.turn({ prompt: 'again', timeoutMs: 60_000 }));
      const again = (await requests(id)).at(-1)?.body as Record<string, unknown>;
      expect(again.reasoning).toMatchObject({ effort: 'low' });
      expect(JSON.stringify(again)).toContain(system);
    } finally {
      await second.d.close();
      await save('settings', c, id);
    }
  });
});

const method = (m: unknown) => (m as { method?: unknown }).method;
const isRequest = (m: unknown) => typeof method(m) === 'string' && 'id' in (m as object);

/** Whether `m` answers a request of `name` that the driver sent. */
function isResponseTo(m: unknown, c: Capture, name: string): boolean {
  const id = (m as { id?: unknown }).id;
  if (method(m) !== undefined || id === undefined) return false;
  return c.messages.some(
    (x) => x.dir === 'out' && method(x.msg) === name && (x.msg as { id: unknown }).id === id,
  );
}
