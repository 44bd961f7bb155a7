// A per-chat agent's MEDIA: lines and send_file calls (both go through this policy) may send only
// from the run's own chat folder, whatever media.allowedRoots says; real files in a temp folder.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { tempDir } from '../helpers/tmp.js';

function setup() {
  const dir = tempDir('aw-confined-');
  const agentRoot = join(dir, 'workspaces', 'family');
  const mine = join(agentRoot, 'twilio_15550001-aaaa');
  const theirs = join(agentRoot, 'twilio_15550002-bbbb');
  const otherAgent = join(dir, 'workspaces', 'work');
  for (const d of [mine, theirs, otherAgent, join(dir, 'staged')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(mine, 'mine.txt'), 'mine');
  writeFileSync(join(theirs, 'secret.txt'), 'theirs');
  writeFileSync(join(otherAgent, 'notes.txt'), 'work');
  symlinkSync(join(theirs, 'secret.txt'), join(mine, 'link.txt'));
  // Wide on purpose: without confinement, every file here could be sent.
  const config = configSchema.parse({ media: { allowedRoots: [dir] } });
  return { dir, agentRoot, mine, theirs, otherAgent, config, staged: join(dir, 'staged') };
}

describe('media policy of a per-chat agent', () => {
  it.each<[string, (s: ReturnType<typeof setup>) => string, boolean]>([
    ['its own file', () => 'mine.txt', true],
    ["another chat's file by ..", () => '../twilio_15550002-bbbb/secret.txt', false],
    ["another chat's file by full path", (s) => join(s.theirs, 'secret.txt'), false],
    ["another agent's file", (s) => join(s.otherAgent, 'notes.txt'), false],
    ["a symlink in its folder to another chat's file", () => 'link.txt', false],
  ])('%s: approved %s', async (_n, ref, want) => {
    const s = setup();
    const check = mediaPolicy(s.config, s.staged, [s.agentRoot]);
    const [d] = await check([ref(s)], { cwd: s.mine, channel: 'twilio' });
    expect(d?.type === 'approved').toBe(want);
  });

  it('an agent that is not per-chat keeps media.allowedRoots', async () => {
    const s = setup();
    const check = mediaPolicy(s.config, s.staged, [s.agentRoot]);
    const [d] = await check([join(s.theirs, 'secret.txt')], { cwd: s.otherAgent, channel: 'twilio' });
    expect(d?.type).toBe('approved');
  });
});
