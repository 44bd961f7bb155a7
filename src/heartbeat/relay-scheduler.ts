// The scheduler as the relay builds it: one call with what the relay already has (config, paths,
// env, logger, the store, the queue as SystemRunner, the default check-in chat), and the
// control-socket methods to register. Everything here is the real thing: system clock, real
// pre-check runner on the spawn helper.
import type { Paths } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import type { JobState } from '../core/job-state.js';
import type { ChatKey, SystemRunner } from '../core/types.js';
import type { Logger } from '../log.js';
import type { Launcher } from '../runner/launcher/client.js';
import type { JobStateStore } from '../store/job-states.js';
import type { TaskStore } from '../store/tasks.js';
import { systemClock } from './clock.js';
import { HEARTBEAT_METHOD, heartbeatMethod } from './control.js';
import { checkEnv, createRunCheck } from './run-check.js';
import { createScheduler, type Scheduler } from './scheduler.js';

export const SCHEDULES_METHOD = 'schedules';

export interface RelaySchedulerInput {
  config: Config;
  paths: Paths;
  env: NodeJS.ProcessEnv;
  /** The scheduler's own logger (a child of the relay's). */
  log: Logger;
  /** Where job states are saved. */
  states: Pick<JobStateStore, 'save'>;
  /** The job states stored when the scheduler was built (`JobStateStore.loadAll`). */
  stored: ReadonlyMap<string, JobState>;
  /** The queue. */
  runner: SystemRunner;
  /** The linked WhatsApp self-chat (e.g. `whatsapp:+15551234567`) once known; undefined before. */
  defaultTarget: () => ChatKey | undefined;
  /** Where agents' tasks are stored (docs/tools.md). */
  tasks?: TaskStore;
  /** Agents' tasks of these chats are fired here (absent: none are). */
  servesTasks?: (chat: ChatKey) => boolean;
  /** The relay's launcher (`agents.launcher`): pre-checks start from it, as the agents do. */
  launcher?: Launcher;
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
    ...(i.launcher && { launcher: i.launcher }),
  });
  const scheduler = createScheduler({
    runner: i.runner,
    clock: systemClock,
    stored: i.stored,
    states: i.states,
    log: i.log,
    runCheck,
    config: i.config,
    defaultTarget: i.defaultTarget,
    ...(i.servesTasks && i.tasks && { tasks: { ...i.tasks, serves: i.servesTasks } }),
  });
  return {
    scheduler,
    methods: {
      [HEARTBEAT_METHOD]: heartbeatMethod(scheduler),
      [SCHEDULES_METHOD]: async () => scheduler.status(),
    },
  };
}
