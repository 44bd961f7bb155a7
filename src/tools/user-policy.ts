// Pure rules for the user's own tools (tools.servers, tools.scripts): how their names are made and
// read back, whether a call may run, asks first or is refused, and the text the agent reads from a
// result. Our own tools never have `__` in their names, so a namespaced name never shadows one.
import type { PermissionPolicy } from '../agents/types.js';
import { SCRIPT_PREFIX } from '../config/schema-user-tools.js';

export const SEPARATOR = '__';

/**
 * A listed name: what the models' providers take as a tool name (64 characters of these, for
 * OpenAI's and Anthropic's APIs) once a CLI has put its own prefix before it (claude's
 * `mcp__agentwire__` is the longest, 16), so at most 48 here.
 */
const LISTABLE = /^[A-Za-z0-9_-]{1,48}$/;

/** Where a listed tool comes from: one server's tool, or one script. */
export type UserToolRef =
  | { type: 'server'; server: string; tool: string }
  | { type: 'script'; script: string };

export const userToolName = (ref: UserToolRef): string =>
  ref.type === 'server'
    ? `${ref.server}${SEPARATOR}${ref.tool}`
    : `${SCRIPT_PREFIX}${SEPARATOR}${ref.script}`;

/** Whether a server's tool can be listed under its namespaced name (a name too long or odd is left out). */
export const listable = (server: string, tool: string): boolean =>
  LISTABLE.test(`${server}${SEPARATOR}${tool}`);

/** Pure: the source a listed name points at; undefined for a name that is not a user tool's. */
export function parseUserToolName(name: string): UserToolRef | undefined {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0 || !LISTABLE.test(name)) return undefined;
  const head = name.slice(0, at);
  const tail = name.slice(at + SEPARATOR.length);
  if (tail === '') return undefined;
  return head === SCRIPT_PREFIX
    ? { type: 'script', script: tail }
    : { type: 'server', server: head, tool: tail };
}

export type CallDecision = { type: 'run' } | { type: 'ask' } | { type: 'refuse'; reason: string };

/**
 * Pure: what happens to a call of a user tool. A tool marked safe runs. Otherwise the run's
 * permission policy decides, as it does for the CLI's own tools: `allow` runs, `ask` asks the
 * chat's approvers, and `deny` (the default, and a member's or guest's run) refuses, since nobody
 * agreed to what the tool may do.
 */
export function decideCall(policy: PermissionPolicy | undefined, safe: boolean): CallDecision {
  if (safe) return { type: 'run' };
  switch (policy ?? 'deny') {
    case 'allow':
      return { type: 'run' };
    case 'ask':
      return { type: 'ask' };
    case 'deny':
      return {
        type: 'refuse',
        reason:
          "it is not marked safe in agentwire's config and this run's permissions are deny, so nobody can allow it",
      };
  }
}

/** What the agent reads of a result at most: a tool that floods gets its head and a note. */
export const MAX_RESULT_CHARS = 100_000;

/** Pure: an MCP result's content as the one text the agent reads (text items whole, others named). */
export function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const parts = content.map((item) => {
    const c = item as { type?: unknown; text?: unknown; uri?: unknown; resource?: { uri?: unknown } };
    if (c.type === 'text' && typeof c.text === 'string') return c.text;
    const what = typeof c.type === 'string' ? c.type.slice(0, 20) : 'unknown';
    const uri = typeof c.uri === 'string' ? c.uri : c.resource?.uri;
    return typeof uri === 'string' ? `[${what}: ${uri.slice(0, 200)}]` : `[${what} content, not shown]`;
  });
  return parts.join('\n');
}

/** Pure: `text` cut to `max` characters with a note saying so. */
export function capText(text: string, max = MAX_RESULT_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… cut: the tool's output was ${text.length} characters, the most shown is ${max}]`;
}
