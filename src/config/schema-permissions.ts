// The `permissions` section: who may answer a warm agent's permission request from the
// phone, and how long a request waits. Whether agents ask at all is `agent.permissions` (per agent).
import { z } from 'zod';

const approver = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((s) => !/\s/.test(s), 'must not contain spaces');

export const permissionsSchema = z
  .object({
    approvers: z
      .array(approver)
      .max(100)
      .optional()
      .describe(
        'Who may answer approvals: sender ids as the channel gives them ("+15551234567", a numeric user id), "<channel>:<id>" for one channel only, or "*" for anyone who may talk in the chat. Default: the owner (the linked number of a channel that has one; else the first allowFrom entry of the channel; the person at the terminal in `agentwire chat`).',
      ),
    timeoutMinutes: z
      .number()
      .positive()
      .max(1440)
      .default(10)
      .describe(
        'Minutes a permission request waits for an answer once the chat is shown it; then it is denied.',
      ),
    settleSeconds: z
      .number()
      .min(0)
      .max(600)
      .default(5)
      .describe(
        'A bare number (1, a choice) that arrives this soon after the question on screen changed (the one before timed out, was withdrawn or answered) is not taken: it may have been typed for the one before. The new question is shown again.',
      ),
  })
  .strict();
