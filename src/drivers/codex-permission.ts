// Every request `codex app-server` can send its client, in two pure halves (table-tested): the
// question a person would be asked (`codexQuestion`: the five approval requests, v2 and v1), and
// the protocol's answer to a Verdict (`answerCodexRequest`). The driver decides the Verdict in
// between (./approval.ts): by the policy, or under `ask` by the person. Answers are one-time
// ("accept", never "acceptForSession"), so the relay never changes a thread's lasting rules (it
// remembers "allow for this chat" itself). A stopped turn's approvals are answered "cancel". A
// question only a person could fill in (user input, an MCP form) is declined, so no turn waits.
import type { ApprovalQuestion } from '../agents/types.js';
import { oneLine, type Verdict } from './approval.js';
import type {
  ApplyPatchApprovalResponse,
  AskForApproval,
  CommandExecutionRequestApprovalResponse,
  DynamicToolCallResponse,
  ExecCommandApprovalResponse,
  FileChangeRequestApprovalResponse,
  McpServerElicitationRequestResponse,
  PermissionsRequestApprovalResponse,
  ServerRequest,
  ToolRequestUserInputResponse,
} from './codex-protocol.js';
import type { Answer } from './codex-rpc.js';
import type { PermissionPolicy } from './types.js';

/**
 * The thread's approval policy. `deny` and `allow` run as cold `codex exec` does (it forces
 * "never": codex asks nothing and the sandbox from the user's config decides). `ask` makes codex
 * ask before anything but its known-safe read-only commands ("untrusted"), so a person sees each
 * command that could change something; the sandbox is still the user's.
 */
export function approvalPolicy(policy: PermissionPolicy): AskForApproval {
  return policy === 'ask' ? 'untrusted' : 'never';
}

/**
 * The question behind an approval request, or undefined for a request that is not one. `files`
 * are the paths of the file-change item the request is about, when the driver saw it start (v2's
 * request names only the item).
 */
export function codexQuestion(
  req: ServerRequest,
  files: readonly string[] = [],
): ApprovalQuestion | undefined {
  switch (req.method) {
    case 'item/commandExecution/requestApproval': {
      const p = req.params;
      const host = p.networkApprovalContext?.host;
      if (host && !p.command) return { toolKind: 'network', summary: `connect to: ${host}` };
      return { toolKind: 'shell', summary: withReason(`run: ${p.command ?? 'a command'}`, p.reason) };
    }
    case 'execCommandApproval':
      return {
        toolKind: 'shell',
        summary: withReason(`run: ${shellWords(req.params.command)}`, req.params.reason),
      };
    case 'item/fileChange/requestApproval':
      return {
        toolKind: 'edit',
        summary: withReason(editSummary(files, req.params.grantRoot), req.params.reason),
      };
    case 'applyPatchApproval':
      return {
        toolKind: 'edit',
        summary: withReason(
          editSummary(Object.keys(req.params.fileChanges), req.params.grantRoot),
          req.params.reason,
        ),
      };
    case 'item/permissions/requestApproval': {
      const asked = req.params.permissions;
      const what = [asked.network ? 'network access' : '', asked.fileSystem ? 'file system access' : '']
        .filter(Boolean)
        .join(' and ');
      return {
        toolKind: 'permissions',
        summary: withReason(`get ${what || 'more permissions'}`, req.params.reason),
      };
    }
    default:
      return undefined;
  }
}

const DENIED = 'denied by the relay';

export function answerCodexRequest(req: ServerRequest, verdict: Verdict): Answer {
  const cancelling = verdict.type === 'cancelled';
  const allow = verdict.type === 'allow_once' || verdict.type === 'allow_chat';
  switch (req.method) {
    case 'item/commandExecution/requestApproval':
    case 'item/fileChange/requestApproval':
      return {
        result: {
          decision: cancelling ? 'cancel' : allow ? 'accept' : 'decline',
        } satisfies CommandExecutionRequestApprovalResponse & FileChangeRequestApprovalResponse,
      };
    case 'item/permissions/requestApproval': {
      // Grants exactly what was asked, for this turn only; a denial grants nothing.
      const asked = req.params.permissions;
      const permissions = allow
        ? {
            ...(asked.network ? { network: asked.network } : {}),
            ...(asked.fileSystem ? { fileSystem: asked.fileSystem } : {}),
          }
        : {};
      return { result: { permissions, scope: 'turn' } satisfies PermissionsRequestApprovalResponse };
    }
    case 'execCommandApproval':
    case 'applyPatchApproval':
      // The v1 forms of the two approvals above.
      return {
        result: {
          decision: cancelling
            ? 'abort'
            : allow
              ? 'approved'
              : { denied: { rejection: verdict.type === 'deny' ? oneLine(verdict.reason, 200) : DENIED } },
        } satisfies ExecCommandApprovalResponse & ApplyPatchApprovalResponse,
      };
    case 'item/tool/requestUserInput':
      // Nobody is at the phone to answer a question mid-turn: no answers, the model carries on.
      return { result: { answers: {} } satisfies ToolRequestUserInputResponse };
    case 'mcpServer/elicitation/request':
      return {
        result: {
          action: cancelling ? 'cancel' : 'decline',
          content: null,
          _meta: null,
        } satisfies McpServerElicitationRequestResponse,
      };
    case 'item/tool/call':
      // The driver registers no dynamic tools, so a call to one is a mistake the model can read.
      return {
        result: {
          success: false,
          contentItems: [{ type: 'inputText', text: 'no such tool on this client' }],
        } satisfies DynamicToolCallResponse,
      };
    default:
      // Account token refresh, attestation, and methods newer than the pinned schema.
      return { error: { code: -32601, message: `${(req as { method: string }).method} is not supported` } };
  }
}

/** Whole and exact: the chat is shown what runs or nothing (core/interaction-text.ts). */
function withReason(summary: string, reason: string | null | undefined): string {
  return reason ? `${summary} (${reason})` : summary;
}

function editSummary(files: readonly string[], grantRoot: string | null | undefined): string {
  if (grantRoot) return `write under: ${grantRoot}`;
  if (files.length === 0) return 'edit files';
  const [first, ...rest] = files;
  return rest.length ? `edit: ${first} and ${rest.length} more` : `edit: ${first}`;
}

/** argv as one shell-like line (words with spaces quoted), for reading only. */
function shellWords(argv: readonly string[]): string {
  return (
    argv.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ') ||
    'a command'
  );
}
