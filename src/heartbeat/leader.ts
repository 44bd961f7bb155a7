// The relay's scheduler (heartbeats, schedules, agents' tasks) under the `scheduler` leader lease
// (store/ownership.ts) instead of the state folder's lock: of the processes sharing a store, only the
// one holding the lease fires. Each time this process gains the lead it plans afresh from the job
// states in the store (what the last leader saved, not what this process read when it started), and
// every save carries that lease's fence: once another process took the lead, a late save of this one
// (a run that ends after the handover) is refused instead of overwriting its successor's state.

import type { JobStateStore } from '../store/job-states.js';
import type { Fence } from '../store/ownership.js';
import { HEARTBEAT_METHOD } from './control.js';
import {
  createRelayScheduler,
  type RelayScheduler,
  type RelaySchedulerInput,
  SCHEDULES_METHOD,
} from './relay-scheduler.js';

/** The part of the process's ownership (queue/process-owner.ts) the scheduler needs. */
export interface Leadership {
  lead(name: string, on: { gained(fence: Fence): void; lost(): void }): void;
  /** Asks for the leads at once (the first answer otherwise waits for a renewal round). */
  claimLeads?(): Promise<void>;
}

export interface LedScheduler {
  /** Control-socket methods, answered by the scheduler while this process leads. */
  methods: Record<string, (params: unknown) => Promise<unknown>>;
  /** Starts asking for the lead; resolves once the first answer is in (and, if granted, the scheduler runs). */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stored tasks changed: the running scheduler re-reads them. */
  syncTasks(): void;
  /** True while this process leads and its scheduler runs. */
  readonly leading: boolean;
}

export function ledScheduler(
  input: Omit<RelaySchedulerInput, 'stored' | 'states'>,
  jobStates: Pick<JobStateStore, 'loadAll' | 'save'>,
  leader: Leadership,
  name = 'scheduler',
): LedScheduler {
  let current: RelayScheduler | undefined;
  let chain: Promise<void> = Promise.resolve();
  let stopped = false;
  // Gains and losses in order: a loss right after a gain stops the scheduler that gain built.
  const serial = (fn: () => Promise<void> | void): void => {
    chain = chain
      .then(fn)
      .catch((err: unknown) => input.log.error({ err }, 'the scheduler could not take over the lead'));
  };
  const gained = (fence: Fence) =>
    serial(async () => {
      current?.scheduler.stop();
      current = undefined;
      const stored = await jobStates.loadAll();
      if (stopped) return;
      current = createRelayScheduler({
        ...input,
        stored,
        states: { save: (job, state, at) => jobStates.save(job, state, at, fence) },
      });
      current.scheduler.start();
    });
  const lost = () =>
    serial(() => {
      current?.scheduler.stop();
      current = undefined;
    });
  const live = (): RelayScheduler => {
    if (!current)
      throw new Error(
        'the scheduler runs in another process on this state folder (the one leading `scheduler`)',
      );
    return current;
  };
  const method =
    (m: string) =>
    async (params: unknown): Promise<unknown> => {
      const fn = live().methods[m];
      if (!fn) throw new Error(`no method ${m}`);
      return fn(params);
    };
  return {
    methods: { [HEARTBEAT_METHOD]: method(HEARTBEAT_METHOD), [SCHEDULES_METHOD]: method(SCHEDULES_METHOD) },
    start: async () => {
      leader.lead(name, { gained, lost });
      await leader.claimLeads?.();
      await chain;
    },
    stop: async () => {
      stopped = true;
      await chain;
      current?.scheduler.stop();
      current = undefined;
    },
    syncTasks: () => void current?.scheduler.syncTasks(),
    get leading() {
      return current !== undefined;
    },
  };
}
