// One line per task an agent scheduled, the same in `/tasks`, the list_tasks tool and
// `agentwire schedules`: id, timing, and the start of its prompt on one line.

export interface TaskLike {
  id: string;
  prompt: string;
  cron?: string;
  every?: string;
  at?: string;
  timeZone?: string;
  pausedAt?: number;
}

const PROMPT_CHARS = 80;

export function taskLine(t: TaskLike): string {
  const timing =
    t.cron !== undefined ? `cron ${t.cron}` : t.every !== undefined ? `every ${t.every}` : `at ${t.at}`;
  const zone = t.timeZone ? ` (${t.timeZone})` : '';
  const prompt = t.prompt.replace(/\s+/g, ' ').trim();
  const cut = prompt.length > PROMPT_CHARS ? `${prompt.slice(0, PROMPT_CHARS - 1)}…` : prompt;
  return `${t.id}: ${timing}${zone}${t.pausedAt !== undefined ? ' (paused)' : ''}: ${cut}`;
}
