// What every tool's handler shares: the refusal the agent reads, its arguments checked again, and the
// run's count of sends (each keyed by its place in the run, so a run redone after a crash writes
// nothing twice).
import { z } from 'zod';
import type { ChatKey } from '../core/types.js';
import type { Fence } from '../store/ownership.js';
import type { ToolName } from './schemas.js';
import type { ToolGrant } from './tokens.js';

/** A refusal the agent should read as is. */
export class ToolError extends Error {}

/** The run that writes: its chat, and its lease of that chat when processes share the store. */
export interface Writer {
  chat: ChatKey;
  fence?: Fence;
}

export function args<T extends z.ZodRawShape>(
  shape: T,
  raw: unknown,
  tool: ToolName,
): z.infer<z.ZodObject<T>> {
  const r = z.object(shape).strict().safeParse(raw);
  if (!r.success) throw new ToolError(`${tool}: ${firstIssue(r.error)}`);
  return r.data;
}

export function firstIssue(e: z.ZodError): string {
  const i = e.issues[0];
  return `${i?.path.join('.') || 'arguments'}: ${i?.message ?? 'invalid'}`;
}

/** Counts one send against the run's cap (`max`), and names it by its place in the run. */
export function nextSendKey(
  max: number,
  g: ToolGrant,
  kind: 'msg' | 'file' | 'card' | 'edit' | 'react',
): string {
  if (g.sent >= max)
    throw new ToolError(
      `not sent: this run already sent ${max} messages, the most one run may send (tools.maxMessagesPerRun). Put the rest in your final answer.`,
    );
  g.sent++;
  g.ordinal++;
  return `tool:${g.runKey}:${kind}:${g.ordinal}`;
}

/**
 * Takes back a send that stored nothing: it does not use up the run's messages, and its key is
 * given to the next send, so a redo after a crash names the sends that were stored the same way.
 */
export function unsend(g: ToolGrant): void {
  g.sent--;
  g.ordinal--;
}

export const writerOf = (g: ToolGrant): Writer => ({ chat: g.chat, ...(g.fence && { fence: g.fence }) });

export const sentLeft = (max: number, g: ToolGrant): string => `${max - g.sent} more this run`;
