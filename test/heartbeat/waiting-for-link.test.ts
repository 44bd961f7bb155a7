// With no heartbeat.target and WhatsApp not linked, every tick is skipped
// (`no_target`); `status` and `schedules` must say so, not "next in 29m → the WhatsApp self-chat".
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderListing } from '../../src/cli/schedules.js';
import { configSchema } from '../../src/config/schema.js';
import { buildListing } from '../../src/heartbeat/listing.js';
import { createScheduler } from '../../src/heartbeat/scheduler.js';
import { gather } from '../../src/ops/status/gather.js';
import { renderStatus } from '../../src/ops/status/render.js';
import { buildSnapshot } from '../../src/ops/status/snapshot.js';
import { readStatusFacts } from '../../src/store/sqlite/status-read.js';
import { captureLog, FakeClock, FakeRunner, jobDeps, openStateDb, tempDir } from './helpers.js';

const NOW = Date.parse('2026-07-01T10:00:00Z');
const cfg = { heartbeat: {}, schedules: [], whatsapp: { enabled: true } };

let tmp: ReturnType<typeof tempDir> | undefined;
afterEach(() => {
  tmp?.cleanup();
  tmp = undefined;
});

describe('heartbeat waiting for the WhatsApp link', () => {
  it('`schedules` says it waits for the link instead of a next time', () => {
    const l = buildListing(
      cfg,
      () => undefined,
      NOW,
      () => undefined,
    );
    expect(l.heartbeat).toMatchObject({ enabled: true, waitingFor: 'whatsapp_link' });
    const text = renderListing(l, NOW);
    expect(text).toContain('waiting for WhatsApp to be linked');
    expect(text).not.toMatch(/heartbeat:.*→/);
    expect(text).not.toMatch(/heartbeat[^\n]*\n\s+next /);
  });

  it('once linked, `schedules` names the self-chat (masked) and the next time', () => {
    const l = buildListing(
      cfg,
      () => undefined,
      NOW,
      () => 'whatsapp:+15551234567',
    );
    expect(l.heartbeat).toMatchObject({ enabled: true, target: 'whatsapp:+15551234567' });
    expect(l.heartbeat).not.toHaveProperty('waitingFor');
    expect(renderListing(l, NOW)).toContain('heartbeat: every 30 min → whatsapp:…4567');
  });

  it('a configured target never waits for the link', () => {
    const l = buildListing(
      { ...cfg, heartbeat: { target: 'twilio:+15551234567' } },
      () => undefined,
      NOW,
      () => undefined,
    );
    expect(l.heartbeat).not.toHaveProperty('waitingFor');
  });

  it('`status` offline: a store without WhatsApp credentials means waiting', () => {
    tmp = tempDir();
    const db = openStateDb(join(tmp.dir, 'agentwire.db'));
    try {
      const snap = buildSnapshot({
        ...gather(readStatusFacts(db), configSchema.parse({}), NOW),
        now: NOW,
        source: 'store',
        relay: { running: false },
        channels: [],
      });
      expect(snap.heartbeat).toMatchObject({ enabled: true, waitingFor: 'whatsapp_link' });
      const text = renderStatus(snap, NOW);
      expect(text).toContain('Heartbeat: waiting for WhatsApp to be linked');
      expect(text).not.toContain('→ the WhatsApp self-chat');
    } finally {
      db.close();
    }
  });

  it('`status` live: the scheduler reports the wait while the default target is unknown', async () => {
    tmp = tempDir();
    const db = openStateDb(join(tmp.dir, 'agentwire.db'));
    const clock = new FakeClock(NOW);
    let linked: string | undefined;
    const s = createScheduler({
      runner: new FakeRunner(clock),
      clock,
      ...jobDeps(db),
      log: captureLog().log,
      runCheck: async () => ({ type: 'failed', message: 'unused' }),
      config: cfg,
      defaultTarget: () => linked as `whatsapp:${string}` | undefined,
    });
    try {
      expect(s.status().heartbeat).toMatchObject({ enabled: true, waitingFor: 'whatsapp_link' });
      linked = 'whatsapp:+15551234567';
      expect(s.status().heartbeat).toMatchObject({ enabled: true, target: linked });
      expect(s.status().heartbeat).not.toHaveProperty('waitingFor');
    } finally {
      s.stop();
      db.close();
    }
  });
});
