// The two pure halves of the claude stream-json protocol that need no process: the argv (the cold
// spec's, so a warm process runs with exactly the cold flags, sessions and permissions), and the
// question and answer of a control request the CLI sends us (tool permission, or anything else).
import { claudeSpec } from '../agents/claude.js';
import type { ApprovalQuestion, BuildContext } from '../agents/types.js';
import { oneLine, shortPath, type Verdict } from './approval.js';
import type { Json } from './claude-transport.js';
import type { PermissionPolicy } from './types.js';

/**
 * The cold argv (`-p --output-format stream-json --verbose`, `--session-id`/`--resume`, model,
 * effort, system text) plus `--input-format stream-json`: user messages then come as NDJSON on
 * stdin, turn after turn. Without `ask`, no `--permission-prompt-tool`, as in cold: a tool the
 * CLI's own rules do not allow is refused inside the CLI (a `permission_denied` event), not asked
 * about. Under `ask`, `--permission-prompt-tool stdio`: each such tool becomes a `can_use_tool`
 * control request to us, and the person answers it.
 */
export function claudeWarmArgv(
  ctx: Omit<BuildContext, 'prompt'>,
  permission: PermissionPolicy = 'deny',
): string[] {
  const { argv } = claudeSpec.build({ ...ctx, prompt: '' });
  const at = argv.indexOf('-p');
  argv.splice(at + 1, 0, '--input-format', 'stream-json');
  if (permission === 'ask') argv.splice(at + 3, 0, '--permission-prompt-tool', 'stdio');
  return argv;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The question behind a `can_use_tool` request (fields from the pinned CLI's own schema:
 * tool_name, input, mcp_server, blocked_path, decision_reason…), or undefined for any other
 * control request. The kind is stable per tool: `shell`, `edit`, `fetch`, `mcp:<server>/<tool>`.
 */
export function claudeQuestion(request: Json, cwd?: string): ApprovalQuestion | undefined {
  if (request.subtype !== 'can_use_tool') return undefined;
  const tool = str(request.tool_name) ?? 'a tool';
  const input = request.input && typeof request.input === 'object' ? (request.input as Json) : {};
  const path = str(input.file_path) ?? str(input.notebook_path) ?? str(request.blocked_path);
  const at = (p: string | undefined) => (p ? shortPath(p, cwd) : 'a file');
  // The summary whole and exact: the chat is shown what runs or nothing (core/interaction-text.ts).
  const q = (toolKind: string, summary: string) => ({ toolKind, summary });
  const mcp = /^mcp__(.+?)__(.+)$/.exec(tool);
  if (mcp) return q(`mcp:${mcp[1]}/${mcp[2]}`, `use mcp tool ${mcp[1]}/${mcp[2]}`);
  switch (tool) {
    case 'Bash':
      return q('shell', `run: ${str(input.command) ?? 'a command'}`);
    case 'Edit':
    case 'MultiEdit':
    case 'Write':
    case 'NotebookEdit':
      return q('edit', `edit: ${at(path)}`);
    case 'WebFetch':
      return q('fetch', `fetch: ${str(input.url) ?? 'a web page'}`);
    case 'WebSearch':
      return q('search', `search the web: ${str(input.query) ?? ''}`);
    case 'Read':
    case 'Glob':
    case 'Grep':
      return q('read', `read: ${at(path ?? str(input.path) ?? str(input.pattern))}`);
    default:
      return q(`tool:${tool}`, `use ${tool}`);
  }
}

/**
 * The `response` of our control_response to a control_request from the CLI. `can_use_tool` is
 * answered by the verdict: allow with the input unchanged (`updatedInput` is what runs), deny with
 * the reason the agent reads, and during a cancel deny with `interrupt` so the turn ends. Any other
 * request is refused as unsupported, so a turn never waits on a question nobody will answer.
 * Formats from the pinned CLI's own schema (2.1.330).
 */
export function answerControl(requestId: string, request: Json, verdict: Verdict): Json {
  if (request.subtype === 'can_use_tool') {
    if (verdict.type === 'allow_once' || verdict.type === 'allow_chat') {
      const input = request.input && typeof request.input === 'object' ? request.input : {};
      return {
        subtype: 'success',
        request_id: requestId,
        response: { behavior: 'allow', updatedInput: input },
      };
    }
    const cancelling = verdict.type === 'cancelled';
    return {
      subtype: 'success',
      request_id: requestId,
      response: {
        behavior: 'deny',
        message: cancelling ? 'The turn was stopped.' : `Denied: ${oneLine(verdict.reason, 200)}.`,
        ...(cancelling ? { interrupt: true } : {}),
      },
    };
  }
  const what = typeof request.subtype === 'string' ? request.subtype : 'unknown';
  return {
    subtype: 'error',
    request_id: requestId,
    error: `agentwire does not support control request ${what.slice(0, 64)}`,
  };
}
