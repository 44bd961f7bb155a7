// What an agent is doing while a turn runs, the same for every CLI and for cold and warm runs: a
// tool started or ended, text arrived, it thinks, it asks the person. Each CLI's spec file maps its
// JSON output onto these (`progressStream`), and drivers/progress-map.ts the warm-only protocols;
// the queue renders them into one status line (core/progress.ts). Everything in an event came
// from the agent, so it is untrusted: `progressEmitter` masks and cuts it before any listener sees it.
import { maskCredentials } from '../log.js';
import { cutText } from './line.js';

export type ProgressEvent =
  /** A tool call began (or, with the same `id`, learned its arguments). */
  | { type: 'tool'; id?: string; name: string; detail?: string; at: number }
  | { type: 'tool_done'; id?: string; ok: boolean; at: number }
  /** Assistant text; a CLI that does not stream deltas gives each whole message as one delta. */
  | { type: 'text'; delta: string; at: number }
  | { type: 'thinking'; at: number }
  /** The turn waits for the person: an approval or the agent's own question. */
  | { type: 'asking'; question: string; at: number };

type Unstamped<E> = E extends unknown ? Omit<E, 'at'> : never;
/** An event as a CLI mapping sees it, before the emitter stamps its time. */
export type ProgressStep = Unstamped<ProgressEvent>;
export type ProgressListener = (event: ProgressEvent) => void;

/** A command keeps its start, a path its end (the file name is what says most). */
export const DETAIL_CHARS = 80;
export const QUESTION_CHARS = 200;
export const DELTA_CHARS = 2000;

/** One line, masked, cut: a path (no spaces, a slash) from the left, anything else from the right. */
export function shortDetail(raw: string, max = DETAIL_CHARS): string {
  const flat = maskCredentials(raw)
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (flat.length <= max || /\s/.test(flat) || !flat.includes('/')) return cutText(flat, max);
  return `…${flat.slice(flat.length - max + 1).replace(/^[\udc00-\udfff]/, '')}`;
}

function clean(step: ProgressStep): ProgressStep | undefined {
  switch (step.type) {
    case 'tool': {
      const name = shortDetail(step.name, 60);
      if (!name) return undefined;
      const detail = step.detail === undefined ? '' : shortDetail(step.detail);
      return { type: 'tool', ...(step.id !== undefined && { id: step.id }), name, ...(detail && { detail }) };
    }
    case 'text':
      return step.delta
        ? { type: 'text', delta: cutText(maskCredentials(step.delta), DELTA_CHARS) }
        : undefined;
    case 'asking':
      return { type: 'asking', question: shortDetail(step.question, QUESTION_CHARS) };
    case 'tool_done':
    case 'thinking':
      return step;
  }
}

/**
 * The one way a mapping's steps reach a listener: masked, cut, stamped with `now()`, and a listener
 * that throws is swallowed, since the turn it watches must go on whatever a status line does.
 */
export function progressEmitter(
  listener: ProgressListener | undefined,
  now: () => number = Date.now,
): (steps: readonly ProgressStep[]) => void {
  if (!listener) return () => undefined;
  return (steps) => {
    for (const step of steps) {
      const ev = clean(step);
      if (!ev) continue;
      try {
        listener({ ...ev, at: now() } as ProgressEvent);
      } catch {
        // A failing listener must not break the turn it listens to.
      }
    }
  };
}

/**
 * A protocol's mapping and the emitter in one: what a driver calls with each message it reads.
 * Without a listener nothing is mapped; a message the mapping cannot read costs the status line only.
 */
export function progressTap<T>(
  map: (input: T) => readonly ProgressStep[],
  listener: ProgressListener | undefined,
  now: () => number = Date.now,
): (input: T) => void {
  if (!listener) return () => undefined;
  const emit = progressEmitter(listener, now);
  return (input) => {
    let steps: readonly ProgressStep[];
    try {
      steps = map(input);
    } catch {
      return;
    }
    emit(steps);
  };
}
