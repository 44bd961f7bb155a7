// A run's progress as one line a phone can show, edited in place while the agent works: a pure
// reducer over ProgressEvents (core/progress-event.ts), the line it renders ("reading src/queue.ts",
// "running `npm test` (12 s)", "asking: deploy where?") and the summary left at the end ("3 tools,
// 48 s"). The queue's feed (queue/progress-feed.ts) decides when to send it (core/progress-throttle.ts).
import { maskCredentials } from '../log.js';
import type { ProgressEvent } from './progress-event.js';

interface OpenTool {
  id?: string;
  name: string;
  detail?: string;
  since: number;
}

export interface ProgressState {
  startedAt: number;
  /** Tool calls begun, and those that ended in an error. */
  tools: number;
  failed: number;
  /** Tools begun and not yet ended, oldest first. */
  open: readonly OpenTool[];
  /** The tool begun last: between two calls of a burst the line shows it, not a bare "working". */
  last?: OpenTool;
  /** What the agent did last when no tool is open. */
  phase:
    | { type: 'working' | 'thinking' | 'writing'; since: number }
    | { type: 'asking'; question: string; since: number };
  /** The tail of the text so far (for `stream`). */
  text: string;
}

export type ProgressMode = 'status' | 'stream';

/** The text kept for `stream`: the tail a status message can hold. */
const TEXT_KEPT = 4000;
const STREAM_SHOWN = 600;
/** Under this a tool's time is not shown: it would only flicker. */
const SHOW_ELAPSED_MS = 5000;

export const startProgress = (at: number): ProgressState => ({
  startedAt: at,
  tools: 0,
  failed: 0,
  open: [],
  phase: { type: 'working', since: at },
  text: '',
});

export function reduceProgress(s: ProgressState, ev: ProgressEvent): ProgressState {
  switch (ev.type) {
    case 'tool': {
      const i = ev.id === undefined ? -1 : s.open.findIndex((t) => t.id === ev.id);
      const tool: OpenTool = {
        ...(ev.id !== undefined && { id: ev.id }),
        name: ev.name,
        ...(ev.detail !== undefined && { detail: ev.detail }),
        since: i === -1 ? ev.at : (s.open[i]?.since ?? ev.at),
      };
      // The same call learning its arguments (ACP sends the command in an update) is not a new tool.
      if (i !== -1) return { ...s, open: s.open.map((t, j) => (j === i ? tool : t)), last: tool };
      return {
        ...s,
        tools: s.tools + 1,
        open: [...s.open, tool],
        last: tool,
        phase: { type: 'working', since: ev.at },
      };
    }
    case 'tool_done': {
      const i = ev.id === undefined ? 0 : s.open.findIndex((t) => t.id === ev.id);
      const open = i === -1 ? s.open : s.open.filter((_, j) => j !== i);
      return { ...s, open, failed: s.failed + (ev.ok ? 0 : 1), phase: { type: 'working', since: ev.at } };
    }
    case 'text': {
      const text = (s.text + ev.delta).slice(-TEXT_KEPT);
      return { ...s, text, phase: s.phase.type === 'writing' ? s.phase : { type: 'writing', since: ev.at } };
    }
    case 'thinking':
      return s.phase.type === 'thinking' ? s : { ...s, phase: { type: 'thinking', since: ev.at } };
    case 'asking':
      return { ...s, phase: { type: 'asking', question: ev.question, since: ev.at } };
  }
}

type Verb = 'run' | 'read' | 'edit' | 'search' | 'fetch' | 'ask' | 'other';

// Tool names as each CLI spells them (claude, codex, pi, gemini, opencode) and ACP's tool kinds.
const VERBS: Record<string, Verb> = {
  bash: 'run',
  shell: 'run',
  run_shell_command: 'run',
  execute: 'run',
  exec: 'run',
  read: 'read',
  read_file: 'read',
  read_many_files: 'read',
  view: 'read',
  edit: 'edit',
  multiedit: 'edit',
  write: 'edit',
  write_file: 'edit',
  replace: 'edit',
  apply_patch: 'edit',
  patch: 'edit',
  notebookedit: 'edit',
  delete: 'edit',
  move: 'edit',
  grep: 'search',
  glob: 'search',
  search: 'search',
  find: 'search',
  ls: 'search',
  list_directory: 'search',
  search_file_content: 'search',
  web_search: 'search',
  websearch: 'search',
  fetch: 'fetch',
  webfetch: 'fetch',
  web_fetch: 'fetch',
  ask_user: 'ask',
  ask_person: 'ask',
};

/** `mcp__agentwire__ask_user` (claude) and `agentwire_ask_user` (opencode) count as `ask_user`. */
function verbOf(name: string): Verb {
  const n = name.toLowerCase();
  const direct = VERBS[n];
  if (direct) return direct;
  return /(^|[/_.])ask_(user|person)$/.test(n) ? 'ask' : 'other';
}

/** A tool's name as a person reads it: `mcp__agentwire__send` becomes `agentwire/send`. */
const toolLabel = (name: string): string => name.replace(/^mcp__(.+?)__(.+)$/, '$1/$2');

function toolLine(t: OpenTool): string {
  const d = t.detail;
  switch (verbOf(t.name)) {
    case 'run':
      return d ? `running \`${d}\`` : 'running a command';
    case 'read':
      return d ? `reading ${d}` : 'reading';
    case 'edit':
      return d ? `editing ${d}` : 'editing';
    case 'search':
      return d ? `searching ${d}` : 'searching';
    case 'fetch':
      return d ? `fetching ${d}` : 'fetching';
    case 'ask':
      return d ? `asking: ${d}` : 'asking';
    case 'other':
      return d ? `using ${toolLabel(t.name)}: ${d}` : `using ${toolLabel(t.name)}`;
  }
}

/** "48 s", "2 min 5 s", "1 h 3 min": whole units, no more than two. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  return m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${Math.floor(m / 60)} h`;
}

/** The one status line: the newest open tool, else what the agent last did. */
export function statusLine(s: ProgressState, now: number): string {
  if (s.phase.type === 'asking') return `asking: ${s.phase.question}`;
  const tool = s.open[s.open.length - 1];
  if (tool) {
    const ms = now - tool.since;
    return ms >= SHOW_ELAPSED_MS ? `${toolLine(tool)} (${formatDuration(ms)})` : toolLine(tool);
  }
  return s.phase.type === 'working' && s.last ? toolLine(s.last) : s.phase.type;
}

/** `status`: the line alone; `stream`: the line over the tail of the text so far. */
export function renderProgress(s: ProgressState, now: number, mode: ProgressMode): string {
  const line = statusLine(s, now);
  if (mode === 'status') return line;
  // The text is masked again whole: a secret split over two deltas was not caught in either.
  const shown = maskCredentials(s.text)
    .split('\n')
    .filter((l) => !/^\s*MEDIA:/.test(l))
    .join('\n')
    .trim();
  if (!shown) return line;
  const tail = shown.length > STREAM_SHOWN ? `…${shown.slice(-STREAM_SHOWN + 1)}` : shown;
  return `${line}\n\n${tail}`;
}

/** What the status message says once the run ended: "3 tools, 48 s". */
export function summaryLine(s: ProgressState, now: number): string {
  const took = formatDuration(now - s.startedAt);
  if (s.tools === 0) return took;
  const tools = `${s.tools} ${s.tools === 1 ? 'tool' : 'tools'}`;
  return s.failed ? `${tools} (${s.failed} failed), ${took}` : `${tools}, ${took}`;
}
