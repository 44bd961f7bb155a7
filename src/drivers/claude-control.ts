// The two pure halves of the claude stream-json protocol that need no process: the argv (the cold
// spec's, so a warm process runs with exactly the cold flags, sessions and permissions), and the
// answer to a control request the CLI sends us (tool permission, or anything else it may ask).
import { claudeSpec } from '../agents/claude.js';
import type { BuildContext } from '../agents/types.js';
import type { Json } from './claude-transport.js';
import type { PermissionPolicy } from './types.js';

/**
 * The cold argv (`-p --output-format stream-json --verbose`, `--session-id`/`--resume`, model,
 * effort, system text) plus `--input-format stream-json`: user messages then come as NDJSON on
 * stdin, turn after turn. No `--permission-prompt-tool`, as in cold: a tool the CLI's own rules do
 * not allow is refused inside the CLI (a `permission_denied` event), not asked about.
 */
export function claudeWarmArgv(ctx: Omit<BuildContext, 'prompt'>): string[] {
  const { argv } = claudeSpec.build({ ...ctx, prompt: '' });
  const at = argv.indexOf('-p');
  argv.splice(at + 1, 0, '--input-format', 'stream-json');
  return argv;
}

/**
 * The `response` of our control_response to a control_request from the CLI. `can_use_tool` (sent
 * only with `--permission-prompt-tool stdio`, which the relay does not pass, but answered in case a
 * setting turns it on) is decided by the policy; while a turn is being cancelled it is denied and
 * the turn interrupted. Any other request is refused as unsupported, so a turn never waits on a
 * question nobody will answer. Formats from the pinned CLI's own schema (2.1.330).
 */
export function answerControl(
  requestId: string,
  request: Json,
  policy: PermissionPolicy,
  cancelling: boolean,
): Json {
  if (request.subtype === 'can_use_tool') {
    if (policy === 'allow' && !cancelling) {
      const input = request.input && typeof request.input === 'object' ? request.input : {};
      return {
        subtype: 'success',
        request_id: requestId,
        response: { behavior: 'allow', updatedInput: input },
      };
    }
    return {
      subtype: 'success',
      request_id: requestId,
      response: {
        behavior: 'deny',
        message: cancelling ? 'The turn was stopped.' : 'Not allowed by the relay’s permission policy.',
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
