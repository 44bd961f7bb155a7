// What every CLI's progress mapping shares (each spec file maps its own JSON stream onto
// ProgressEvents, core/progress-event.ts, read off the real captures in fixtures/agents/: see
// test/agents/progress-map.test.ts). A mapping only reads; the emitter masks and cuts what it returns.
import type { ProgressStep } from '../core/progress-event.js';
import { type Json, jsonLine, obj, str } from './common.js';

export const NO_STEPS: ProgressStep[] = [];

// The argument that says most about a call, in the names the CLIs give it.
const DETAIL_KEYS = [
  'command',
  'file_path',
  'filePath',
  'absolute_path',
  'path',
  'notebook_path',
  'pattern',
  'query',
  'url',
  'question',
] as const;

/** The first telling string argument of a tool call, if it has one. */
export function detailOf(input: unknown): string | undefined {
  const o = obj(input);
  if (!o) return undefined;
  for (const k of DETAIL_KEYS) {
    const v = str(o[k]);
    if (v?.trim()) return v;
  }
  return undefined;
}

/** A tool call's step, when the CLI named the tool. */
export const step = (
  name: string | undefined,
  id: string | undefined,
  detail: string | undefined,
): ProgressStep[] =>
  name
    ? [{ type: 'tool', name, ...(id !== undefined && { id }), ...(detail !== undefined && { detail }) }]
    : NO_STEPS;

/** `/bin/bash -lc 'echo hi'` (how codex wraps every command) read as `echo hi`. */
export function unwrapShell(command: string): string {
  const m = /^(?:\S*\/)?(?:ba|z)?sh -l?c '((?:[^']|'\\'')*)'$/.exec(command.trim());
  return m ? m[1]!.replaceAll("'\\''", "'") : command;
}

/** A spec's `progressStream`: its mapping over stdout lines (a line that is not JSON says nothing). */
export const progressLines =
  (map: (ev: Json) => ProgressStep[]) => (): ((line: string) => ProgressStep[]) => (line) => {
    const ev = jsonLine(line);
    return ev ? map(ev) : NO_STEPS;
  };
