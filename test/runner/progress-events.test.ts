// A cold run tells its progress listener what the CLI's stream shows, as it streams: each CLI's
// real tool capture replayed by a stand-in CLI (test/fixtures/replay-cli.mjs) through runCommandReply.
// Its own file: registered credentials are process-wide for the test worker.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import type { ProgressEvent } from '../../src/core/progress-event.js';
import { registerCredential } from '../../src/log.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { FIXTURES_DIR } from '../agents/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

const REPLAY = join(import.meta.dirname, '..', 'fixtures', 'replay-cli.mjs');

const replay = (kind: string, onEvent: (ev: ProgressEvent) => void) => {
  const dir = tempDir('aw-progress-');
  return runCommandReply(getSpec(kind), {
    prompt: 'run it',
    session: { type: 'new' },
    command: [process.execPath, REPLAY],
    cwd: dir,
    stateDir: join(dir, 'state'),
    timeoutMs: 20_000,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', REPLAY_CAPTURE: join(FIXTURES_DIR, kind, 'tool.json') },
    onEvent,
  });
};

describe('cold progress events', () => {
  it.each(['claude', 'codex', 'pi', 'gemini', 'opencode'])(
    '%s: the tool call and its end, in order, stamped',
    async (kind) => {
      const seen: ProgressEvent[] = [];
      const r = await replay(kind, (ev) => seen.push(ev));
      expect(r.type).toBe('ok');
      const tools = seen.filter((e) => e.type === 'tool' || e.type === 'tool_done');
      expect(tools).toEqual([
        expect.objectContaining({ type: 'tool', detail: 'echo fake-tool-ran', at: expect.any(Number) }),
        expect.objectContaining({ type: 'tool_done', ok: true }),
      ]);
    },
  );

  it('masks a credential in a command, and a listener that throws breaks nothing', async () => {
    registerCredential('fake-tool-ran');
    const seen: ProgressEvent[] = [];
    const r = await replay('claude', (ev) => {
      seen.push(ev);
      throw new Error('a broken status line');
    });
    expect(r).toMatchObject({ type: 'ok', text: 'Here is your chart.' });
    expect(seen.find((e) => e.type === 'tool')).toMatchObject({ name: 'Bash', detail: 'echo [redacted]' });
  });
});
