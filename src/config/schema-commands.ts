// `commands`: the command prefix, aliases, and the user's own chat commands (`commands.<name>`),
// each a prompt, a script, or a check that decides whether the agent is woken (docs/commands.md).
import { z } from 'zod';
import { isBuiltinWord } from '../core/commands.js';
import { COMMAND_SETTINGS_KEYS } from '../core/custom-commands.js';

const access = z
  .enum(['owner', 'member', 'guest'])
  .optional()
  .describe('Who may use it: the owner alone by default, or members too, or guests too.');
const description = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .optional()
  .describe("Shown in /help and in a channel's command menu where it has one.");
const argv = z.array(z.string().min(1)).min(1);
const timeoutSeconds = z
  .number()
  .int()
  .min(1)
  .max(600)
  .default(30)
  .describe('The script is stopped (its whole process group) past this.');

const promptCommand = z
  .object({
    prompt: z
      .string()
      .trim()
      .min(1)
      .describe('The prompt run in the chat; {args} is the arguments, fenced as data.'),
    access,
    description,
  })
  .strict();

const runCommand = z
  .object({
    run: argv.describe(
      'A script and its arguments, run without a shell; an element "{args}" is the arguments as one.',
    ),
    timeoutSeconds,
    access,
    description,
  })
  .strict();

const checkCommand = z
  .object({
    check: argv.describe(
      'A script run first: exit 0 with output wakes the agent with the prompt and that output.',
    ),
    prompt: z.string().trim().min(1).describe('The prompt when the check wakes the agent; {args} as above.'),
    timeoutSeconds,
    access,
    description,
  })
  .strict();

export const customCommandSchema = z.union([checkCommand, runCommand, promptCommand]);

const NAME = /^[a-z][a-z0-9_]{0,31}$/;

export const commandsSchema = z
  .object({
    prefix: z.string().min(1).max(3).default('/').describe('What starts a chat command.'),
    aliases: z
      .record(z.string(), z.string())
      .default({})
      .describe('Extra trigger words mapped to a command, e.g. {"reset": "new"}.'),
  })
  // Any other key is a command of the user's own; its shape is checked like any other key.
  .catchall(customCommandSchema)
  .superRefine((section, ctx) => {
    const aliases = Object.keys(section.aliases ?? {}).map((a) => a.trim().toLowerCase());
    for (const name of Object.keys(section)) {
      if (COMMAND_SETTINGS_KEYS.includes(name)) continue;
      if (!NAME.test(name))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'a command name is lowercase letters, digits and _, starting with a letter (at most 32)',
        });
      else if (isBuiltinWord(name) || aliases.includes(name))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `/${name} is a built-in command (or an alias); choose another name`,
        });
    }
  });
