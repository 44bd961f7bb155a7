// A reply stored in the outbox with an attachment survives a restart: its staged copy lives in the
// state folder (0700, files 0600) for as long as an unsent chunk names it, and is what is sent after
// the restart, even though the original's folder has been swapped for a link out of the root since.
// Copies no unsent reply names are swept, once they are older than the grace period.

import {
  existsSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePaths } from '../../src/config/paths.js';
import { configSchema } from '../../src/config/schema.js';
import type { OutboundItem } from '../../src/core/types.js';
import { createLogger } from '../../src/log.js';
import { stagingService } from '../../src/media/staging-service.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { composeItems } from '../../src/queue/compose.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { enqueueOutbound, markSent, nextPending } from '../../src/store/sqlite/outbox.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { setup as waSetup } from '../channels/whatsapp/harness.js';
import { tempDir } from '../helpers/tmp.js';

const ALICE = '+15557654321';
const log = createLogger({ level: 'silent' });

function age(file: string, hours: number): void {
  const t = Date.now() / 1000 - hours * 3600;
  utimesSync(file, t, t);
}

async function sweep(db: ReturnType<typeof openDb>, paths: ReturnType<typeof resolvePaths>): Promise<void> {
  const service = stagingService.create({ store: storeOver(db), paths, log });
  await service.start();
  await service.stop();
}

describe('staged media across a restart', () => {
  it('is sent from the copy after a restart, and swept once sent', async () => {
    const base = realpathSync(tempDir('aw-staged-'));
    const paths = resolvePaths({ AGENTWIRE_HOME: join(base, 'home') });
    const work = join(base, 'work');
    mkdirSync(join(work, 'd'), { recursive: true });
    mkdirSync(join(base, 'outside', 'd'), { recursive: true });
    mkdirSync(paths.home, { recursive: true });
    writeFileSync(join(work, 'd', 'chart.png'), 'INSIDE');
    writeFileSync(join(base, 'outside', 'd', 'chart.png'), 'SECRET');
    const policy = mediaPolicy(configSchema.parse({ media: { allowedRoots: [work] } }), paths.stagedMedia);

    let db = openDb(sqliteFile(paths.home), QUEUE_MIGRATIONS);
    const items = await composeItems(
      policy,
      { text: 'here', media: ['d/chart.png'], channel: 'whatsapp', cwd: work, limit: 4000 },
      log,
    );
    enqueueOutbound(db, `whatsapp:${ALICE}`, 'run-1', items, Date.now());
    // A copy nobody will send (a crash between the check and the outbox write), long ago.
    mkdirSync(paths.stagedMedia, { recursive: true });
    writeFileSync(join(paths.stagedMedia, 'orphan.png'), 'x');
    age(join(paths.stagedMedia, 'orphan.png'), 2);
    db.close();

    // While the relay is down, the folder is swapped for a link out of the root.
    renameSync(join(work, 'd'), join(work, 'd-old'));
    symlinkSync(join(base, 'outside', 'd'), join(work, 'd'));

    db = openDb(sqliteFile(paths.home), QUEUE_MIGRATIONS);
    const staged = readdirSync(paths.stagedMedia).filter((n) => n !== 'orphan.png');
    expect(staged).toHaveLength(1);
    // Old enough to be swept if nothing named it: the unsent reply keeps it.
    age(join(paths.stagedMedia, staged[0]!), 2);
    await sweep(db, paths);
    expect(readdirSync(paths.stagedMedia)).toEqual(staged);
    expect(statSync(paths.stagedMedia).mode & 0o777).toBe(0o700);
    expect(statSync(join(paths.stagedMedia, staged[0]!)).mode & 0o777).toBe(0o600);

    const wa = await waSetup({ config: { whatsapp: { allowFrom: [ALICE] } } });
    const sock = await wa.start();
    for (let row = nextPending(db, `whatsapp:${ALICE}`); row; row = nextPending(db, `whatsapp:${ALICE}`)) {
      expect((await wa.channel.send(ALICE, row.item as OutboundItem)).ok).toBe(true);
      markSent(db, row.id, Date.now());
    }
    const image = sock.sent.map((s) => (s.content as { image?: Buffer }).image).find(Boolean);
    expect(image?.toString()).toBe('INSIDE');

    await sweep(db, paths);
    expect(existsSync(join(paths.stagedMedia, staged[0]!))).toBe(false);
    db.close();
  });
});
