// The warm-agent keys: the pool of live agent processes, and the checks an ACP agent
// needs. Kept apart from schema.ts so that file stays one screenful per section.
import { z } from 'zod';

// The count is a backstop (file handles, pids), not the limit that matters: memory is. An idle warm
// process group holds about 150 MB (codex) to 600 MB (opencode), so a count says nothing of what
// the machine can hold (docs/warm-agents.md). Sixteen leaves the memory budget to decide on any
// machine with less than about 20-40 GB, and still bounds a machine with more.
export const WARM_MAX_PROCESSES = 16;

/**
 * The default memory budget: a quarter of the machine's memory. The relay runs on the owner's own
 * computer beside their editor, browser and the builds and tests the agents run (children of the
 * agents, in the processes the budget measures, but mostly between turns gone); a quarter leaves
 * three for those and still holds 4 claude processes on a 4 GB machine, 14 on 16 GB.
 */
export const WARM_MEMORY_SHARE = 0.25;

/**
 * The default limit of one process: 2 GB, about three times the largest idle CLI measured
 * (opencode, ~600 MB). A process past it has grown (a long session's history, a leak); a new one
 * resuming the session gives the memory back at the cost of one start.
 */
export const WARM_PROCESS_MB = 2048;

/**
 * How long a warm start may go unanswered (the pool's START_LIMIT_MS, in seconds): the CLIs start
 * warm in 0.5-5 s on a 2-core machine, and one that will never speak its protocol (a wrapper that
 * does not pass it through) costs the first message this long once, not the drivers' minute.
 */
export const WARM_START_SECONDS = 20;

// Four chats a codex or ACP process by default: with the default four processes, sixteen chats stay
// warm in the memory of four, while one crash or one slow process still touches at most four chats.
// The queue's default `maxConcurrentRuns` (4) means a process rarely has more than that mid-turn.
export const WARM_SESSIONS_PER_PROCESS = 4;

export const warmSchema = z
  .object({
    maxProcesses: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(WARM_MAX_PROCESSES)
      .describe(
        'At most this many live warm agent processes, over all chats; memory (maxMemoryMb) is the limit that usually decides.',
      ),
    maxMemoryMb: z
      .number()
      .int()
      .min(64)
      .optional()
      .describe(
        "The memory budget of all live warm processes (each process tree's resident memory, sampled between turns); default: a quarter of the machine's memory. A new process that would pass it waits for, or closes, an idle one; the first always starts.",
      ),
    maxProcessMemoryMb: z
      .number()
      .int()
      .min(64)
      .optional()
      .describe(
        'One warm process above this much resident memory (read between turns, at most once a second) is closed after its turn; the next turn resumes the session in a new one. Default: 2048, or maxMemoryMb if smaller.',
      ),
    fairWaitSeconds: z
      .number()
      .positive()
      .max(3600)
      .default(30)
      .describe(
        'How long a chat may wait while chats with a live process (and messages waiting) go first; after it, an idle process is recycled for it.',
      ),
    sessionsPerProcess: z
      .number()
      .int()
      .min(1)
      .max(64)
      .default(WARM_SESSIONS_PER_PROCESS)
      .describe(
        'Chats one codex or ACP process may serve, each in its own session (claude and pi: always 1; 1 = a process per chat).',
      ),
    idleMinutes: z
      .number()
      .positive()
      .max(7 * 24 * 60)
      .default(15)
      .describe("A chat's warm process is closed after this many minutes without a turn."),
    startSeconds: z
      .number()
      .positive()
      .max(600)
      .default(WARM_START_SECONDS)
      .describe(
        'How long a warm start may go unanswered before the CLI is taken for one that will not speak its protocol and runs cold (remembered across restarts).',
      ),
  })
  .strict();

/** The byte limits the pool runs with: the configured ones, else the defaults for this machine. */
export function warmMemory(
  w: Pick<WarmConfig, 'maxMemoryMb' | 'maxProcessMemoryMb'>,
  totalBytes: number,
): { maxMemoryBytes: number; maxProcessBytes: number } {
  const mb = 1024 * 1024;
  const maxMemoryBytes =
    w.maxMemoryMb !== undefined ? w.maxMemoryMb * mb : Math.floor(totalBytes * WARM_MEMORY_SHARE);
  const maxProcessBytes =
    w.maxProcessMemoryMb !== undefined
      ? w.maxProcessMemoryMb * mb
      : Math.min(WARM_PROCESS_MB * mb, maxMemoryBytes);
  return { maxMemoryBytes, maxProcessBytes };
}

export type WarmConfig = z.infer<typeof warmSchema>;

interface AgentLike {
  kind: string;
  command?: string[] | undefined;
  mode?: 'warm' | 'cold' | undefined;
}

/**
 * An ACP agent has no spec of ours, so it needs its argv; and there is no one-shot ACP mode, so it
 * cannot run cold. Each problem names the key to fix.
 */
export function acpProblems(
  agent: AgentLike,
  acp: { command?: string[] | undefined; mode?: 'warm' | 'cold' | undefined } | undefined,
): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const main = agent.kind === 'acp';
  if (!main && !acp) return out;
  if (!acp?.command && !(main && agent.command)) {
    out.push({
      path: main ? ['agent', 'command'] : ['agents', 'acp', 'command'],
      message:
        "an ACP agent needs its command: the argv that starts it speaking ACP on stdio, e.g. ['my-agent', '--acp']",
    });
  }
  if (main && agent.mode === 'cold')
    out.push({
      path: ['agent', 'mode'],
      message: "an ACP agent runs warm only: remove mode or set it to 'warm'",
    });
  if (acp?.mode === 'cold')
    out.push({
      path: ['agents', 'acp', 'mode'],
      message: "an ACP agent runs warm only: remove mode or set it to 'warm'",
    });
  return out;
}
