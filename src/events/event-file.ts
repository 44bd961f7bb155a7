// What one event says (a file in <state>/events/, or `agentwire trigger`), checked by a strict
// schema, and the chat it names resolved: a chat key of a channel this relay runs, or a name from
// `targets`. Pure: the folder watcher and the control method call it and act on the answer.
import { z } from 'zod';
import type { ChatKey } from '../core/types.js';

/** What the runner needs of an event beyond its chat and text (stored as JSON beside it). */
export interface EventOptions {
  session?: 'chat' | 'own' | 'fresh';
  agent?: string;
  quiet?: boolean;
  /** Wait for heartbeat.activeHours before running. */
  activeHours?: boolean;
  /** send_to_agent: how many agents this request has passed through (the run's own calls add one). */
  hop?: number;
}

export const MAX_EVENT_TEXT = 16_000;

export const eventFileSchema = z
  .object({
    chat: z.string().min(1).max(200),
    text: z.string().trim().min(1).max(MAX_EVENT_TEXT),
    at: z.iso.datetime({ offset: true, local: false }).optional(),
    agent: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,31}$/)
      .optional(),
    session: z.enum(['chat', 'own', 'fresh']).optional(),
    quiet: z.boolean().optional(),
    activeHours: z.boolean().optional(),
  })
  .strict();

export type EventFile = z.infer<typeof eventFileSchema>;

/** A chat reference as the relay knows it: resolved, or why not (a sentence). */
export type ChatResolution = { ok: true; chat: ChatKey } | { ok: false; error: string };

export type ResolveChat = (ref: string) => ChatResolution;

export interface CheckedEvent {
  chat: ChatKey;
  text: string;
  dueAt: number;
  options: EventOptions;
}

export type EventCheck = { ok: true; event: CheckedEvent } | { ok: false; error: string };

/** Checks one event's JSON text; `now` is when it arrived (an event without `at` is due then). */
export function checkEventText(
  text: string,
  resolve: ResolveChat,
  knownAgent: (kind: string) => boolean,
  now: number,
): EventCheck {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `not JSON: ${(err as Error).message}` };
  }
  return checkEvent(raw, resolve, knownAgent, now);
}

export function checkEvent(
  raw: unknown,
  resolve: ResolveChat,
  knownAgent: (kind: string) => boolean,
  now: number,
): EventCheck {
  const p = eventFileSchema.safeParse(raw);
  if (!p.success)
    return {
      ok: false,
      error: p.error.issues
        .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
        .join('; '),
    };
  const e = p.data;
  const chat = resolve(e.chat.trim());
  if (!chat.ok) return { ok: false, error: `chat: ${chat.error}` };
  if (e.agent !== undefined && !knownAgent(e.agent))
    return { ok: false, error: `agent: "${e.agent}" is not an agent kind this relay knows` };
  const dueAt = e.at === undefined ? now : Date.parse(e.at);
  return {
    ok: true,
    event: {
      chat: chat.chat,
      text: e.text,
      // A time in the past is simply due now; the order among due events stays by that time.
      dueAt,
      options: {
        ...(e.session !== undefined && { session: e.session }),
        ...(e.agent !== undefined && { agent: e.agent }),
        ...(e.quiet && { quiet: true }),
        ...(e.activeHours && { activeHours: true }),
      },
    },
  };
}
