// Progress lines stream to a chat with /verbose: a credential the agent quotes in one is masked as in
// the final reply. Its own file: registered credentials are process-wide for the test worker.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { registerCredential } from '../../src/log.js';
import { runCommandReply } from '../../src/runner/run-command-reply.js';
import { FIXTURES_DIR } from '../agents/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

const REPLAY = join(import.meta.dirname, '..', 'fixtures', 'replay-cli.mjs');

describe('streamed progress', () => {
  it('masks registered credentials before a line leaves the runner', async () => {
    // The capture's progress line is "Let me check."; pretend its first words are a key.
    registerCredential('Let me check');
    const dir = tempDir('aw-mask-');
    const progress: string[] = [];
    const r = await runCommandReply(getSpec('claude'), {
      prompt: 'chart',
      session: { type: 'new' },
      command: [process.execPath, REPLAY],
      cwd: dir,
      stateDir: join(dir, 'state'),
      timeoutMs: 20_000,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        REPLAY_CAPTURE: join(FIXTURES_DIR, 'claude', 'tool.json'),
      },
      onProgress: (t) => progress.push(t),
    });
    expect(progress).toEqual(['[redacted].']);
    expect(r).toMatchObject({ type: 'ok', progress: ['[redacted].'] });
  });
});
