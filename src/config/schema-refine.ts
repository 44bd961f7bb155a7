// Pieces the config schema's files share (schema.ts, schema-checkins.ts).
import { z } from 'zod';
import { AGENT_KINDS } from '../agents/types.js';

/**
 * Cross-field checks run even when another key of the same object already failed, so one
 * `config check` lists every problem (zod skips refinements after a failure by default). The
 * value may then be malformed: each check tests the types it relies on.
 */
export const ALWAYS = { when: () => true };
type Loose = Record<string, unknown>;
export const loose = (v: unknown): Loose | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : undefined;
export const optString = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';

export const agentKind = z.enum(AGENT_KINDS as [string, ...string[]]);
