// The same five checks for every real CLI, through runCommandReply exactly as the relay runs it.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { newSession } from '../../src/agents/resolve.js';
import type { AgentKind } from '../../src/agents/types.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import type { ToolCall } from './fake-model/scenario.js';
import { requests, scenario, stateDir, turn, waitNoLeftovers } from './harness.js';

const MEDIA_REPLY =
  'Here you go.\nMEDIA: ./a.png\n```\nMEDIA: ./not-this.png\n```\nAnd also:\nMEDIA: `./b file.pdf`';

export interface CliSuiteOptions {
  hangTimeoutMs: number;
  /** A model the fake setup accepts, and the name it shows up as in the request. */
  model: { flag: string; inRequest: string };
  thinking?: string;
  /** Whether the CLI takes agentwire's systemText. */
  systemText: boolean;
  /** The model's call to the CLI's own tool that reads `file` (absolute), for the tool check. */
  readTool: (file: string) => ToolCall;
}

export function defineCliSuite(kind: AgentKind, opts: CliSuiteOptions): void {
  const spec = getSpec(kind);
  const id = (what: string) => `${kind}-${what}-${randomUUID().slice(0, 8)}`;

  describe(`${kind} (real CLI)`, () => {
    it('starts a new session and resumes it: the second turn carries the first', async () => {
      const state = stateDir(kind);
      const word = `pineapple-${randomUUID().slice(0, 6)}`;
      const first = id('new');
      const t1 = turn(
        kind,
        state,
        await scenario(first, { reply: 'Noted.' }),
        `Remember ${word}.`,
        newSession(spec),
        60_000,
      );
      const r1 = await runCommandReply(spec, t1.request);
      expect(r1).toMatchObject({ type: 'ok', text: 'Noted.', media: [] });
      expect(r1.sessionId).toBeTruthy();

      const second = id('resume');
      const base2 = await scenario(second, { reply: 'It was the fruit.' });
      const t2 = turn(
        kind,
        state,
        base2,
        '--which word? @not-a-file',
        { type: 'resume', id: r1.sessionId! },
        60_000,
      );
      const r2 = await runCommandReply(spec, t2.request);
      expect(r2).toMatchObject({ type: 'ok', text: 'It was the fruit.', sessionId: r1.sessionId });
      const seen = JSON.stringify(await requests(second));
      // The prompt arrived verbatim (stdin: never a flag, never a file reference) after turn one.
      expect(seen).toContain('--which word? @not-a-file');
      expect(seen).toContain(word);
    });

    it('accepts the model, thinking and system-text flags agentwire passes', async () => {
      const state = stateDir(kind);
      const sc = id('flags');
      const t = turn(
        kind,
        state,
        await scenario(sc, { reply: 'Configured.' }),
        'hello',
        newSession(spec),
        60_000,
      );
      const system = `-Answer as agentwire-${randomUUID().slice(0, 6)}.`;
      const flags = {
        model: opts.model.flag,
        ...(opts.thinking ? { thinking: opts.thinking } : {}),
        ...(opts.systemText ? { systemText: system } : {}),
      };
      const r = await runCommandReply(spec, { ...t.request, ...flags });
      expect(r).toMatchObject({ type: 'ok', text: 'Configured.' });
      const seen = JSON.stringify(await requests(sc));
      expect(seen).toContain(opts.model.inRequest);
      if (opts.systemText) expect(seen).toContain(system);

      // The same flags on a resumed turn (codex's `exec resume`, for one, has its own option list).
      const sc2 = id('flags-resume');
      const t2 = turn(
        kind,
        state,
        await scenario(sc2, { reply: 'Still configured.' }),
        'again',
        { type: 'resume', id: r.sessionId! },
        60_000,
      );
      const r2 = await runCommandReply(spec, { ...t2.request, ...flags });
      expect(r2).toMatchObject({ type: 'ok', text: 'Still configured.', sessionId: r.sessionId });
      const seen2 = JSON.stringify(await requests(sc2));
      expect(seen2).toContain(opts.model.inRequest);
      expect(seen2).toContain('again');
    });

    it('extracts MEDIA references, leaving code blocks alone', async () => {
      const state = stateDir(kind);
      const t = turn(
        kind,
        state,
        await scenario(id('media'), { reply: MEDIA_REPLY }),
        'send files',
        newSession(spec),
        60_000,
      );
      const r = await runCommandReply(spec, t.request);
      expect(r).toMatchObject({
        type: 'ok',
        text: 'Here you go.\n```\nMEDIA: ./not-this.png\n```\nAnd also:',
        media: ['./a.png', './b file.pdf'],
      });
    });

    it("runs a tool the model calls and sends its result back (the fake server's tool mode)", async () => {
      const state = stateDir(kind);
      const sc = id('tool');
      const word = `kiwi-${randomUUID().slice(0, 8)}`;
      const t0 = turn(kind, state, await scenario(sc, { reply: 'x' }), 'read it', newSession(spec), 60_000);
      const file = join(t0.request.cwd, 'word.txt');
      writeFileSync(file, `${word}\n`);
      await scenario(sc, { mode: 'tool', tool: opts.readTool(file), reply: 'I read it.' });
      const r = await runCommandReply(spec, t0.request);
      expect(r).toMatchObject({ type: 'ok', text: 'I read it.' });
      const seen = await requests(sc);
      // The tool ran in the CLI, and its output came back to the model in the next request.
      expect(seen.map((q) => q.answer)).toContain(`tool ${opts.readTool(file).name}`);
      expect(JSON.stringify(seen.at(-1)?.body)).toContain(word);
    });

    it('reports a rejected API key as an auth error', async () => {
      const state = stateDir(kind);
      const t = turn(
        kind,
        state,
        await scenario(id('401'), { mode: 'error', status: 401 }),
        'hello',
        newSession(spec),
        60_000,
      );
      const r = await runCommandReply(spec, t.request);
      expect(r).toMatchObject({ type: 'error', kind: 'auth' });
    });

    it('kills a run whose model server hangs, leaving no process behind', async () => {
      // The run must be stuck on the model, not still starting up: on a loaded machine a cold start
      // (opencode, gemini) can outlast the limit before any request. Then it is tried again with a
      // longer limit, up to three times; each try must still end in the timeout with nothing left.
      let waited = false;
      for (let attempt = 0, limit = opts.hangTimeoutMs; attempt < 3 && !waited; attempt++, limit *= 3) {
        const state = stateDir(kind);
        const sc = id('hang');
        const t = turn(kind, state, await scenario(sc, { mode: 'hang' }), 'hello', newSession(spec), limit);
        const r = await runCommandReply(spec, t.request);
        expect(r).toMatchObject({ type: 'error', kind: 'timeout' });
        expect(await waitNoLeftovers(t.marker)).toEqual([]);
        waited = (await requests(sc)).length > 0;
      }
      expect(waited, 'the CLI never reached the hanging model server').toBe(true);
    }, 300_000);
  });
}
