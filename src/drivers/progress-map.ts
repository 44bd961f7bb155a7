// The warm protocols that differ from their CLI's cold output, mapped onto ProgressEvents
// (core/progress-event.ts): codex app-server's items and ACP's session updates. claude stream-json and
// pi rpc speak their cold JSON events and use src/agents/progress-map.ts. Read off the captures in
// fixtures/agents/<kind>/warm/ (test/drivers/progress-map.test.ts).
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { detailOf, unwrapShell } from '../agents/progress-map.js';
import type { ProgressStep } from '../core/progress-event.js';
import type { ServerNotification, ThreadItem } from './codex-protocol.js';

const NO_STEPS: ProgressStep[] = [];

/** A codex item as a tool call: what it is called and what it works on. */
function codexTool(item: ThreadItem): { name: string; detail?: string } | undefined {
  switch (item.type) {
    case 'commandExecution':
      // commandActions holds the command without codex's `bash -lc` wrapper.
      return { name: 'shell', detail: item.commandActions?.[0]?.command ?? unwrapShell(item.command) };
    case 'fileChange': {
      const path = item.changes[0]?.path;
      return path ? { name: 'edit', detail: path } : { name: 'edit' };
    }
    case 'mcpToolCall': {
      const detail = detailOf(item.arguments);
      return { name: `${item.server}/${item.tool}`, ...(detail !== undefined && { detail }) };
    }
    case 'webSearch':
      return { name: 'web_search' };
    case 'imageView':
      return { name: 'read', detail: item.path };
    case 'userMessage':
    case 'hookPrompt':
    case 'agentMessage':
    case 'reasoning':
    case 'plan':
    case 'contextCompaction':
    case 'enteredReviewMode':
    case 'exitedReviewMode':
      return undefined;
    default:
      return { name: item.type };
  }
}

const FAILED = new Set(['failed', 'declined']);

/** `item/started` and `item/completed` of codex app-server. Text comes from its deltas. */
export function codexItemProgress(phase: 'started' | 'completed', item: ThreadItem): ProgressStep[] {
  if (item.type === 'reasoning') return phase === 'started' ? [{ type: 'thinking' }] : NO_STEPS;
  const tool = codexTool(item);
  if (!tool) return NO_STEPS;
  if (phase === 'started') return [{ type: 'tool', id: item.id, ...tool }];
  const status = 'status' in item && typeof item.status === 'string' ? item.status : undefined;
  const exit = 'exitCode' in item && typeof item.exitCode === 'number' ? item.exitCode : 0;
  return [
    { type: 'tool_done', id: item.id, ok: !(status !== undefined && FAILED.has(status)) && exit === 0 },
  ];
}

/** One notification of a codex app-server turn (the driver checks it is the turn's own). */
export function codexProgress(n: ServerNotification): ProgressStep[] {
  switch (n.method) {
    case 'item/started':
      return codexItemProgress('started', n.params.item);
    case 'item/completed':
      return codexItemProgress('completed', n.params.item);
    case 'item/agentMessage/delta':
      return n.params.delta ? [{ type: 'text', delta: n.params.delta }] : NO_STEPS;
    default:
      return NO_STEPS;
  }
}

const ENDED = new Set(['completed', 'failed']);

/**
 * ACP `session/update`. A tool call is named by its kind (execute, read, edit…: what the status
 * line's verbs know) and shown by its command, path or title; an update that brings the command
 * (opencode sends it after the call began) is the same call again, which the reducer merges by id.
 */
export function acpProgress(u: SessionUpdate): ProgressStep[] {
  switch (u.sessionUpdate) {
    case 'agent_message_chunk':
      return u.content.type === 'text' && u.content.text
        ? [{ type: 'text', delta: u.content.text }]
        : NO_STEPS;
    case 'agent_thought_chunk':
      return [{ type: 'thinking' }];
    case 'tool_call':
    case 'tool_call_update': {
      const id = u.toolCallId;
      if (u.status && ENDED.has(u.status)) return [{ type: 'tool_done', id, ok: u.status === 'completed' }];
      const name = u.kind ?? u.title;
      // A command's location is only the folder it runs in: its title says more.
      const place = u.kind === 'execute' ? undefined : u.locations?.[0]?.path;
      const detail = detailOf(u.rawInput) ?? place ?? (u.title !== name ? u.title : undefined) ?? undefined;
      // An update with nothing new (a status change alone) adds nothing.
      if (!name || (u.sessionUpdate === 'tool_call_update' && u.rawInput === undefined && !u.title))
        return NO_STEPS;
      return [{ type: 'tool', id, name, ...(detail && { detail }) }];
    }
    default:
      return NO_STEPS;
  }
}
