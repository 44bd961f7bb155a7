// How the relay's composition root builds the scheduler: one call with what the relay already has
// (config, paths, env, logger, the store, the queue as SystemRunner, the WhatsApp self-chat), and
// the control-socket methods to register. Everything here is the real thing: system clock, real
// pre-check runner on the spawn helper.
import type { Paths } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import type { ChatKey, SystemRunner } from '../core/types.js';
import type { Logger } from '../log.js';
import type { Db } from '../store/db.js';
import { systemClock } from './clock.js';
import { HEARTBEAT_METHOD, heartbeatMethod } from './control.js';
import { checkEnv, createRunCheck } from './run-check.js';
import { createScheduler, type Scheduler } from './scheduler.js';

export const SCHEDULES_METHOD = 'schedules';

export interface RelaySchedulerInput {
  config: Config;
  paths: Paths;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** The relay's store, opened with `scheduleMigration` among its migrations. */
  db: Db;
  /** The queue. */
  runner: SystemRunner;
  /** The linked WhatsApp self-chat (e.g. `whatsapp:+15551234567`) once known; undefined before. */
  defaultTarget: () => ChatKey | undefined;
}

export interface RelayScheduler {
  scheduler: Scheduler;
  /** Control-socket methods: `heartbeat` ({to?, dryRun?} → outcome) and `schedules` (() → status). */
  methods: Record<string, (params: unknown) => Promise<unknown>>;
}

export function createRelayScheduler(i: RelaySchedulerInput): RelayScheduler {
  const runCheck = createRunCheck({
    env: checkEnv(i.env, i.config.agent.env),
    cwd: i.config.agent.cwd ?? i.paths.workspace,
  });
  const scheduler = createScheduler({
    runner: i.runner,
    clock: systemClock,
    db: i.db,
    log: i.log.child({ module: 'heartbeat' }),
    runCheck,
    config: i.config,
    defaultTarget: i.defaultTarget,
  });
  return {
    scheduler,
    methods: {
      [HEARTBEAT_METHOD]: heartbeatMethod(scheduler),
      [SCHEDULES_METHOD]: async () => scheduler.status(),
    },
  };
}
