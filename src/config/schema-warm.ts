// The warm-agent keys (issue 16): the pool of live agent processes, and the checks an ACP agent
// needs. Kept apart from schema.ts so that file stays one screenful per section.
import { z } from 'zod';

// Four by default: the queue's default `maxConcurrentRuns`, so no turn waits for the pool that would
// not wait for the queue anyway, and at most about 0.6 GB (codex, ~143 MB a process) to 2 GB
// (opencode, ~507 MB) of idle memory: claude ~225 MB, pi ~167 MB, gemini ~254 MB (docs/warm-agents.md).
export const WARM_MAX_PROCESSES = 4;

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
        'At most this many live warm agent processes, over all chats (each holds 150-500 MB; see docs/warm-agents.md).',
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
  })
  .strict();

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
