// What a chat command typed in one process asks of the process that runs the chat (`chat_control`,
// store/ownership.ts): /stop stops its run, /new ends the scope's warm process. The command's durable
// half is already in the store when this is sent (the running messages marked stopped, the session
// generation bumped); this is only the in-memory half, for a run or a warm process another process has.
import type { CommandPlan } from '../core/command-handler.js';
import type { ChatKey } from '../core/types.js';

export type ChatControl =
  | { type: 'stop'; chat: ChatKey }
  | { type: 'reset_scope'; chat: ChatKey; scope: string };

/** The controls a committed command's effects ask of whoever runs the chat. */
export function controlsOf(chat: ChatKey, effects: readonly CommandPlan['effects'][number][]): ChatControl[] {
  const out: ChatControl[] = [];
  for (const e of effects) {
    if (e.type === 'stop_run') out.push({ type: 'stop', chat });
    else if (e.type === 'reset_scope') out.push({ type: 'reset_scope', chat, scope: e.scope });
  }
  return out;
}

/** A notification's key: the control as JSON (a key is text; the chat alone would not say what to do). */
export function controlKey(c: ChatControl): string {
  return JSON.stringify(c);
}

/** The control a key carries; undefined for one this version cannot read (sent by a newer one). */
export function parseControl(key: string): ChatControl | undefined {
  let v: unknown;
  try {
    v = JSON.parse(key);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.chat !== 'string') return undefined;
  const chat = o.chat as ChatKey;
  if (o.type === 'stop') return { type: 'stop', chat };
  if (o.type === 'reset_scope' && typeof o.scope === 'string')
    return { type: 'reset_scope', chat, scope: o.scope };
  return undefined;
}
