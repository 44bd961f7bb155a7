// The operations sections of the config: the local web console, the log file, and how long the
// store keeps the text of handled messages. Kept apart from schema.ts to keep that file readable.
import { z } from 'zod';
import { progressFields } from './schema-progress.js';

export const consoleSchema = z
  .object({
    enabled: z.boolean().default(true).describe('The local web console.'),
    ...progressFields,
    host: z.string().default('127.0.0.1').describe('Address the console binds to.'),
    port: z.number().int().min(0).max(65_535).default(8788).describe('Console port.'),
  })
  .strict();

export const retentionSchema = z
  .object({
    messageDays: z
      .number()
      .positive()
      .default(30)
      .describe(
        'Days the text of handled messages and sent replies stays in the store; the ids that stop a redelivered message from running twice are kept 90 days (or this long, if longer).',
      ),
  })
  .strict();

export const logSchema = z
  .object({
    level: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace'])
      .default('info')
      .describe('Log level.'),
    maxFileMb: z.number().positive().default(10).describe('Rotate the log file at this size.'),
    keepFiles: z.number().int().min(1).max(100).default(5).describe('Rotated files kept.'),
  })
  .strict();
