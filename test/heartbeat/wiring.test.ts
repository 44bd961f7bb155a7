// The relay's one-call wiring, with a config parsed from text like the relay does, a real store
// file, and the SystemRunner double; the scheduler is not started, so no real time passes.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelState } from '../../src/channels/types.js';
import { renderOutcome } from '../../src/cli/heartbeat.js';
import { parseConfigText } from '../../src/config/load.js';
import { resolvePaths } from '../../src/config/paths.js';
import type { Config } from '../../src/config/schema.js';
import type { HeartbeatMethodResult } from '../../src/heartbeat/control.js';
import { createRelayScheduler, heartbeatService } from '../../src/heartbeat/wiring.js';
import type { Db } from '../../src/store/sqlite/db.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import { captureLog, FakeClock, FakeRunner, jobDeps, ok, openStateDb, tempDir } from './helpers.js';

let tmp: ReturnType<typeof tempDir>;
let db: Db;
beforeEach(() => {
  tmp = tempDir();
  db = openStateDb(join(tmp.dir, 'agentwire.db'));
});
afterEach(() => {
  db.close();
  tmp.cleanup();
});

function config(text: string): Config {
  const r = parseConfigText(text, 'c.json5', {});
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
}

describe('createRelayScheduler', () => {
  it('offers the heartbeat and schedules control methods', async () => {
    const runner = new FakeRunner(new FakeClock(0));
    runner.sessions.add('whatsapp:+15551234567');
    runner.replies = [ok('HEARTBEAT_OK')];
    const { scheduler, methods } = createRelayScheduler({
      config: config(
        '{schedules: [{id: "plan", cron: "0 8 * * *", timeZone: "UTC", target: "whatsapp:+15551234567", prompt: "p"}]}',
      ),
      paths: resolvePaths({ AGENTWIRE_HOME: tmp.dir }),
      env: {},
      log: captureLog().log,
      ...jobDeps(db),
      runner,
      defaultTarget: () => 'whatsapp:+15551234567',
    });
    expect(Object.keys(methods).sort()).toEqual(['heartbeat', 'schedules']);
    expect(await methods.heartbeat?.({ dryRun: true })).toEqual({
      type: 'silent',
      chat: 'whatsapp:+15551234567',
    });
    expect(runner.runs[0]?.opts.allowNewSession).toBe(false);
    expect(await methods.heartbeat?.({ dryRun: 'yes' })).toMatchObject({ type: 'invalid' });
    expect(await methods.heartbeat?.({ to: 'x', extra: 1 })).toMatchObject({ type: 'invalid' });
    const status = (await methods.schedules?.(undefined)) as ReturnType<typeof scheduler.status>;
    expect(status.heartbeat).toMatchObject({
      enabled: true,
      everyMinutes: 30,
      target: 'whatsapp:+15551234567',
    });
    expect(status.schedules.map((s) => s.id)).toEqual(['plan']);
    scheduler.stop();
  });
});

describe('heartbeatService', () => {
  it('registers its control methods and checks in with the WhatsApp self-chat', async () => {
    const runner = new FakeRunner(new FakeClock(0));
    runner.sessions.add('whatsapp:+15551234567');
    runner.replies = [ok('Your 10:00 moved to 11:00.')];
    let state: ChannelState = { type: 'connecting', since: 0 };
    const registered = new Map<string, (p: unknown) => Promise<unknown>>();
    const service = await heartbeatService.create({
      config: config('{}'),
      paths: resolvePaths({ AGENTWIRE_HOME: tmp.dir }),
      env: {},
      log: captureLog().log,
      store: storeOver(db),
      runner,
      channels: new Map([['whatsapp', { status: () => state }]]),
      control: { register: (name, handler) => registered.set(name, handler) },
    });
    expect([...registered.keys()].sort()).toEqual(['heartbeat', 'schedules']);
    // Not linked yet: no target, nothing runs.
    expect(await registered.get('heartbeat')?.({})).toMatchObject({ type: 'skipped', reason: 'no_target' });
    state = { type: 'connected', since: 1, account: '+15551234567' };
    expect(await registered.get('heartbeat')?.({})).toMatchObject({
      type: 'sent',
      chat: 'whatsapp:+15551234567',
      text: 'Your 10:00 moved to 11:00.',
    });
    // A reconnect keeps the last known self-chat.
    state = { type: 'connecting', since: 2 };
    expect(await registered.get('schedules')?.(undefined)).toMatchObject({
      heartbeat: { enabled: true, target: 'whatsapp:+15551234567' },
    });
    await service.start();
    await service.stop();
  });

  it('says a fired heartbeat is queued, and why, when its channel cannot deliver the reply now', async () => {
    const runner = new FakeRunner(new FakeClock(0));
    runner.sessions.add('whatsapp:+15551234567');
    runner.replies = [ok('Build is green.'), ok('Still green.')];
    let state: ChannelState = { type: 'connected', since: 1, account: '+15551234567' };
    const registered = new Map<string, (p: unknown) => Promise<unknown>>();
    await heartbeatService.create({
      config: config('{}'),
      paths: resolvePaths({ AGENTWIRE_HOME: tmp.dir }),
      env: {},
      log: captureLog().log,
      store: storeOver(db),
      runner,
      channels: new Map([['whatsapp', { status: () => state }]]),
      control: { register: (name, handler) => registered.set(name, handler) },
    });
    const fire = registered.get('heartbeat') as (p: unknown) => Promise<HeartbeatMethodResult>;
    const sent = await fire({});
    expect(sent).toMatchObject({ type: 'sent' });
    expect(sent).not.toHaveProperty('queued');
    expect(renderOutcome(sent, false).text).toMatch(/^Sent to /);

    state = { type: 'relink_required', since: 2, reason: 'logged out on the phone' };
    const queued = await fire({});
    expect(queued).toMatchObject({ type: 'sent', queued: { state: 'relink_required' } });
    const text = renderOutcome(queued, false).text;
    expect(text).toContain("Queued in the running relay's outbox");
    expect(text).toContain('needs to be linked again');
    expect(text).not.toMatch(/^Sent to /);
  });
});
