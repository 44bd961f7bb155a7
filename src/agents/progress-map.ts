// Each CLI's JSON stream mapped onto ProgressEvents (core/progress-event.ts), one function per event
// shape, read off the real captures in fixtures/agents/ (test/agents/progress-map.test.ts). Claude's
// stream-json and pi's JSON events are the same in a cold run and a warm one, so the drivers use these
// too. A mapping only reads; the emitter masks and cuts what it returns.
import type { ProgressStep } from '../core/progress-event.js';
import { arr, type Json, jsonLine, obj, str } from './common.js';

const NO_STEPS: ProgressStep[] = [];

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

const step = (
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

/** claude stream-json (`-p --output-format stream-json --verbose`, cold and warm). */
export function claudeProgress(ev: Json): ProgressStep[] {
  const msg = obj(ev.message);
  if (ev.type === 'assistant' && msg && msg.model !== '<synthetic>') {
    return arr(msg.content).flatMap((b): ProgressStep[] => {
      const block = obj(b);
      if (block?.type === 'tool_use') return step(str(block.name), str(block.id), detailOf(block.input));
      if (block?.type === 'thinking') return [{ type: 'thinking' }];
      const text = block?.type === 'text' ? str(block.text) : undefined;
      return text ? [{ type: 'text', delta: text }] : NO_STEPS;
    });
  }
  if (ev.type === 'user' && msg) {
    return arr(msg.content).flatMap((b): ProgressStep[] => {
      const block = obj(b);
      if (block?.type !== 'tool_result') return NO_STEPS;
      const id = str(block.tool_use_id);
      return [{ type: 'tool_done', ...(id !== undefined && { id }), ok: block.is_error !== true }];
    });
  }
  return NO_STEPS;
}

const CODEX_TOOLS: Record<string, string> = {
  command_execution: 'shell',
  file_change: 'edit',
  web_search: 'web_search',
};

/** codex exec --json: items start and complete; a command's own line says what it runs. */
export function codexExecProgress(ev: Json): ProgressStep[] {
  const item = obj(ev.item);
  const type = str(item?.type);
  if (!item || !type || (ev.type !== 'item.started' && ev.type !== 'item.completed')) return NO_STEPS;
  if (type === 'agent_message') {
    const text = ev.type === 'item.completed' ? str(item.text) : undefined;
    return text ? [{ type: 'text', delta: text }] : NO_STEPS;
  }
  if (type === 'reasoning') return [{ type: 'thinking' }];
  if (type === 'user_message' || type === 'todo_list' || type === 'error') return NO_STEPS;
  const id = str(item.id);
  if (ev.type === 'item.completed') {
    const failed = item.status === 'failed' || (typeof item.exit_code === 'number' && item.exit_code !== 0);
    return [{ type: 'tool_done', ...(id !== undefined && { id }), ok: !failed }];
  }
  const command = str(item.command);
  const name =
    type === 'mcp_tool_call' ? [str(item.server), str(item.tool)].filter(Boolean).join('/') : undefined;
  return step(name || CODEX_TOOLS[type] || type, id, command ? unwrapShell(command) : detailOf(item));
}

/** pi --mode json (cold) and --mode rpc (warm): the same agent events. */
export function piProgress(ev: Json): ProgressStep[] {
  const id = str(ev.toolCallId);
  switch (ev.type) {
    case 'tool_execution_start':
      return step(str(ev.toolName), id, detailOf(ev.args));
    case 'tool_execution_end':
      return [{ type: 'tool_done', ...(id !== undefined && { id }), ok: ev.isError !== true }];
    case 'message_update': {
      const e = obj(ev.assistantMessageEvent);
      if (e?.type === 'thinking_start') return [{ type: 'thinking' }];
      const delta = e?.type === 'text_delta' ? str(e.delta) : undefined;
      return delta ? [{ type: 'text', delta }] : NO_STEPS;
    }
    default:
      return NO_STEPS;
  }
}

/** gemini --output-format stream-json. */
export function geminiProgress(ev: Json): ProgressStep[] {
  const id = str(ev.tool_id);
  switch (ev.type) {
    case 'tool_use':
      return step(str(ev.tool_name), id, detailOf(ev.parameters));
    case 'tool_result':
      return [{ type: 'tool_done', ...(id !== undefined && { id }), ok: ev.status === 'success' }];
    case 'message': {
      const text = ev.role === 'assistant' ? str(ev.content) : undefined;
      return text ? [{ type: 'text', delta: text }] : NO_STEPS;
    }
    default:
      return NO_STEPS;
  }
}

/** opencode run --format json: a tool part comes once it ran, so it starts and ends on one line. */
export function opencodeProgress(ev: Json): ProgressStep[] {
  const part = obj(ev.part);
  if (ev.type === 'text') {
    const text = str(part?.text);
    return text ? [{ type: 'text', delta: text }] : NO_STEPS;
  }
  if (ev.type === 'reasoning') return [{ type: 'thinking' }];
  if (ev.type !== 'tool_use' || !part) return NO_STEPS;
  const state = obj(part.state);
  const id = str(part.callID);
  const started = step(str(part.tool), id, detailOf(state?.input) ?? str(state?.title));
  const status = state?.status;
  if (status !== 'completed' && status !== 'error') return started;
  return [...started, { type: 'tool_done', ...(id !== undefined && { id }), ok: status === 'completed' }];
}

/** A spec's `progressStream`: its mapping over stdout lines (a line that is not JSON says nothing). */
export const progressLines =
  (map: (ev: Json) => ProgressStep[]) => (): ((line: string) => ProgressStep[]) => (line) => {
    const ev = jsonLine(line);
    return ev ? map(ev) : NO_STEPS;
  };
