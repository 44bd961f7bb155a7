// An ACP agent's `session/request_permission` in two pure halves (table-tested): the question a
// person would be asked (`acpQuestion`, from the tool call's kind, title, locations and raw input),
// and the outcome for a Verdict (`answerPermission`). The driver decides the Verdict in between
// (./approval.ts), by the policy or, under `ask`, by the person. A one-time option wins over an
// "always" one, so an answer the relay gives never changes the agent's lasting settings (the relay
// remembers "allow for this chat" itself). During a cancel every question is answered `cancelled`,
// as the protocol asks of a client.
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ApprovalQuestion } from '../agents/types.js';
import { oneLine, shortPath, type Verdict } from './approval.js';

const PREFERENCE: Record<'allow' | 'deny', readonly string[]> = {
  allow: ['allow_once', 'allow_always'],
  deny: ['reject_once', 'reject_always'],
};

type Loose = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const obj = (v: unknown): Loose => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});

/**
 * The question behind a request. The kind is ACP's tool kind, named as the other CLIs' are
 * (`execute` → `shell`; `edit`, `delete`, `move` → `edit`; `fetch`, `read`, `search`); a tool of
 * kind `other` (an MCP tool, say) is known by its title, so allowing one never allows the rest.
 */
export function acpQuestion(
  request: Pick<RequestPermissionRequest, 'toolCall'>,
  cwd?: string,
): ApprovalQuestion {
  const call = obj(request.toolCall);
  const raw = obj(call.rawInput);
  const title = str(call.title);
  const locations = Array.isArray(call.locations) ? call.locations : [];
  const path = str(obj(locations[0]).path) ?? str(raw.file_path) ?? str(raw.path) ?? str(raw.filePath);
  const at = path ? shortPath(path, cwd) : (title ?? 'a file');
  // The summary whole and exact: the chat is shown what runs or nothing (core/interaction-text.ts).
  const q = (toolKind: string, summary: string) => ({ toolKind, summary });
  switch (call.kind) {
    case 'execute':
      return q('shell', `run: ${str(raw.command) ?? title ?? 'a command'}`);
    case 'edit':
      return q('edit', `edit: ${at}`);
    case 'delete':
      return q('edit', `delete: ${at}`);
    case 'move':
      return q('edit', `move: ${at}`);
    case 'fetch':
      return q('fetch', `fetch: ${str(raw.url) ?? title ?? 'a web page'}`);
    case 'read':
      return q('read', `read: ${at}`);
    case 'search':
      return q('search', `search: ${title ?? str(raw.query) ?? str(raw.pattern) ?? ''}`);
    default: {
      const name = title ? oneLine(title, 60) : 'a tool';
      return q(`tool:${name}`, `use ${name}`);
    }
  }
}

export function answerPermission(
  request: Pick<RequestPermissionRequest, 'options'>,
  verdict: Verdict,
): RequestPermissionResponse {
  if (verdict.type === 'cancelled') return { outcome: { outcome: 'cancelled' } };
  const options = Array.isArray(request.options) ? request.options : [];
  const want = verdict.type === 'deny' ? PREFERENCE.deny : PREFERENCE.allow;
  for (const kind of want) {
    const option = options.find((o) => o?.kind === kind && typeof o.optionId === 'string');
    if (option) return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
  // Nothing fits (a deny with only allow options, or none at all): refusing to choose is the one
  // answer that grants nothing and still lets the turn go on.
  return { outcome: { outcome: 'cancelled' } };
}
