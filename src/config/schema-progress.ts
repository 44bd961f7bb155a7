// The live status message of a run, per channel section (docs/configuration.md, "Progress"): shared
// by every channel's schema so each section spells it the same way.
import { z } from 'zod';

export const PROGRESS_MODES = ['off', 'status', 'stream'] as const;
export type ProgressConfigMode = (typeof PROGRESS_MODES)[number];
export const PROGRESS_ENDS = ['summary', 'delete'] as const;
export type ProgressEndConfig = (typeof PROGRESS_ENDS)[number];

export const progressFields = {
  progress: z
    .enum(PROGRESS_MODES)
    .default('status')
    .describe(
      'A status message per run, edited in place while the agent works: `status` shows what it does ("running `npm test` (12 s)"), `stream` adds the tail of its text, `off` sends none. Only where the channel can edit messages (SMS never gets one); it appears at the first tool call or after 5 s of work, so a short answer comes alone. Default: status.',
    ),
  progressEnd: z
    .enum(PROGRESS_ENDS)
    .default('summary')
    .describe(
      'What the status message becomes when the run ends: a `summary` ("3 tools, 48 s"), or `delete`d (where the channel cannot delete, it ends on the summary).',
    ),
};

export interface ProgressSettings {
  mode: Exclude<ProgressConfigMode, 'off'>;
  end: ProgressEndConfig;
}

/**
 * A channel section's progress settings, or undefined when it is off. Read by the section's name so a
 * channel plug-in whose section spreads `progressFields` needs nothing more.
 */
export function progressSettings(config: object, channel: string): ProgressSettings | undefined {
  const section: unknown = Object.hasOwn(config, channel)
    ? (config as Record<string, unknown>)[channel]
    : undefined;
  if (!section || typeof section !== 'object') return undefined;
  const { progress, progressEnd } = section as { progress?: unknown; progressEnd?: unknown };
  if (progress !== 'status' && progress !== 'stream') return undefined;
  return { mode: progress, end: progressEnd === 'delete' ? 'delete' : 'summary' };
}
