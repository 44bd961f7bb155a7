// The heartbeat and schedules sections of the config schema (src/config/schema.ts composes them).
import { z } from 'zod';
import { isValidTimeZone } from '../core/hours.js';
import { parseTiming } from '../core/timing.js';
import { parseChatKey } from '../core/types.js';
import { ALWAYS, agentKind, loose, optString } from './schema-refine.js';

const activeHours = z
  .object({
    start: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM')
      .describe('Start, HH:MM.'),
    end: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'HH:MM')
      .describe('End, HH:MM (may be before start: spans midnight; 24:00 is the end of the day).'),
    timeZone: z.string().optional().describe("IANA time zone, e.g. Europe/Berlin. Default: the machine's."),
  })
  .strict()
  .superRefine((value, ctx) => {
    const h = loose(value);
    if (!h) return;
    if (typeof h.start === 'string' && h.start === h.end)
      ctx.addIssue({ code: 'custom', path: ['end'], message: 'same as start: empty window' });
    if (typeof h.timeZone === 'string' && !isValidTimeZone(h.timeZone))
      ctx.addIssue({ code: 'custom', path: ['timeZone'], message: `unknown time zone "${h.timeZone}"` });
  }, ALWAYS);

// How a heartbeat or schedule runs: check-ins that do not burn tokens.
const runFields = {
  agent: agentKind
    .optional()
    .describe("Another CLI for this job, e.g. a cheaper one. Default: the chat's (agent.kind or /agent)."),
  model: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9._:/@+=-]*$/,
      'a model name like "vendor/model-4.5" (letters, digits and . _ : / @ + = -)',
    )
    .optional()
    .describe("Model for this job, passed with the CLI's model flag. Default: the CLI's configured model."),
  session: z
    .enum(['chat', 'own', 'fresh'])
    .optional()
    .describe(
      "Which session: 'chat' (the chat's, default), 'own' (one kept for this job alone) or 'fresh' (a new one each run).",
    ),
};
const checkFields = {
  check: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe('Optional pre-check argv: the agent wakes only if it exits 0 and prints.'),
};

/**
 * The form of a target's chat key only. Whether its channel exists and takes that chat id (and
 * whether it is a group or a broadcast) is the channel's to say: loadConfig's `check`
 * (heartbeat/target.ts, configTargetProblems) asks the channel plug-ins, in the layer that knows them.
 */
function chatKeyForm(raw: string): string | undefined {
  if (parseChatKey(raw.trim())) return undefined;
  return `"${raw}" is not a chat key like "<channel>:<chat id>", e.g. "whatsapp:+15551234567"`;
}

export const heartbeatSchema = z
  .object({
    everyMinutes: z
      .number()
      .int()
      .min(0)
      .max(10_080)
      .optional()
      .describe('Minutes between heartbeats; 0 disables. Default 30 when a target exists.'),
    target: z
      .string()
      .optional()
      .describe(
        'Chat to check in with, e.g. "whatsapp:+15551234567"; never a group. Default: the linked WhatsApp self-chat.',
      ),
    prompt: z
      .string()
      .optional()
      .describe('What the agent is asked. Default: a check-in asking for HEARTBEAT_OK when all is well.'),
    activeHours: activeHours.optional().describe('Only fire inside these hours, e.g. 08:00-22:00.'),
    ...checkFields,
    checkTimeoutSeconds: z
      .number()
      .int()
      .positive()
      .max(3600)
      .optional()
      .describe('Pre-check time limit. Default 60.'),
    ...runFields,
  })
  .strict()
  .superRefine((value, ctx) => {
    const target = loose(value)?.target;
    if (typeof target !== 'string') return;
    const problem = chatKeyForm(target);
    if (problem) ctx.addIssue({ code: 'custom', path: ['target'], message: problem });
  }, ALWAYS);

export const scheduleSchema = z
  .object({
    id: z
      .string()
      .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, dot, dash and underscore only')
      .describe('A name for the schedule (unique).'),
    cron: z.string().optional().describe('Cron expression, 5 fields (minute hour day month weekday).'),
    every: z.string().optional().describe('Interval like "15m", "2h" or "1d" (at least 1m).'),
    at: z
      .string()
      .optional()
      .describe('One-shot time, e.g. "2026-07-01T09:00" (in timeZone) or with Z / an offset.'),
    timeZone: z.string().optional().describe("IANA time zone for cron and at. Default: the machine's."),
    target: z.string().describe('Chat key, e.g. "whatsapp:+15551234567".'),
    prompt: z.string().min(1).describe('What the agent is asked.'),
    ...checkFields,
    checkTimeoutSeconds: z.number().int().positive().max(3600).default(60).describe('Pre-check time limit.'),
    ...runFields,
  })
  .strict()
  .superRefine((value, ctx) => {
    const s = loose(value);
    if (!s) return;
    if (typeof s.target === 'string') {
      const problem = chatKeyForm(s.target);
      if (problem) ctx.addIssue({ code: 'custom', path: ['target'], message: problem });
    }
    const kinds = (['cron', 'every', 'at'] as const).filter((k) => s[k] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({ code: 'custom', path: [], message: 'exactly one of cron, every or at is required' });
      return;
    }
    const { cron, every, at, timeZone } = s;
    if (!optString(cron) || !optString(every) || !optString(at) || !optString(timeZone)) return;
    const t = parseTiming({ cron, every, at, timeZone });
    if (!t.ok) ctx.addIssue({ code: 'custom', path: [t.key], message: t.error });
  }, ALWAYS);

export const schedulesSchema = z
  .array(scheduleSchema)
  .default([])
  .superRefine((value, ctx) => {
    if (!Array.isArray(value)) return;
    const seen = new Set<string>();
    value.forEach((s: unknown, i) => {
      const id = loose(s)?.id;
      if (typeof id !== 'string') return;
      if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate id "${id}"` });
      seen.add(id);
    });
  }, ALWAYS);
