// Answers every request `codex app-server` can send its client, without a person: the configured
// policy decides approvals, and a question only a person could answer (user input, an MCP form)
// is declined, so a turn never waits on it. Answers are one-time ("accept", never
// "acceptForSession"), so nothing the relay says on its own changes a thread's lasting rules.
// While a turn is being interrupted every approval is answered "cancel". Pure: table-tested.
import type {
  ApplyPatchApprovalResponse,
  CommandExecutionRequestApprovalResponse,
  DynamicToolCallResponse,
  ExecCommandApprovalResponse,
  FileChangeRequestApprovalResponse,
  McpServerElicitationRequestResponse,
  PermissionsRequestApprovalResponse,
  ServerRequest,
  ToolRequestUserInputResponse,
} from './codex-protocol/index.js';
import type { Answer } from './codex-rpc.js';
import type { PermissionPolicy } from './types.js';

const DENIED = 'the relay answers approvals by its configured policy, which denies this';

export function answerCodexRequest(
  req: ServerRequest,
  policy: PermissionPolicy,
  cancelling: boolean,
): Answer {
  const allow = policy === 'allow' && !cancelling;
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
          decision: cancelling ? 'abort' : allow ? 'approved' : { denied: { rejection: DENIED } },
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
