// `access` (who is an owner or a guest, and what guests may do) and the per-channel `dm` policy.
// The roles themselves are core/roles.ts; docs/access.md explains them.
import { z } from 'zod';
import { COMMAND_NAMES, type CommandName } from '../core/commands.js';

// A sender id as its channel gives it (`+15551234567`, a Telegram user id) or `<channel>:<id>`.
const sender = z
  .string()
  .trim()
  .min(1)
  .refine((s) => s !== '*', 'names one sender; "*" would make everyone an owner or a guest');

export const accessSchema = z
  .object({
    owners: z
      .array(sender)
      .default([])
      .describe(
        "Owners besides each channel's own (its linked number, else the first allowFrom entry): a sender id, or '<channel>:<id>' for one channel. Owners may use every command.",
      ),
    guests: z
      .array(sender)
      .default([])
      .describe(
        'Guests: let in on direct chats like allowFrom, but with only guestCommands and the guest profile of their agent.',
      ),
    guestCommands: z
      .array(z.enum(COMMAND_NAMES as [CommandName, ...CommandName[]]))
      .default(['help'])
      .describe(
        'Chat commands guests may use. Owner-only commands (agent, think, verbose, approve, deny) stay refused.',
      ),
  })
  .strict();

export const dmField = z
  .enum(['allowlist', 'everyone', 'none'])
  .default('allowlist')
  .describe(
    "Who may talk in direct chats: allowlist (allowFrom, plus access.owners and access.guests), everyone (any stranger, as a guest; config check warns), or none (only the owner's own chat).",
  );
