// pi's `extension_ui_request` dialogs in two pure halves (table-tested). pi itself never asks before
// a tool runs; its extensions do (a permission gate calls `ctx.ui.confirm`, or a `select` of "Yes" /
// "No"), and in RPC mode a dialog blocks the turn until the client answers. `piQuestion` says which
// dialogs are yes-or-no questions a person can answer from a phone: every `confirm`, and a `select`
// with an option that says yes or no in words. `answerUi` answers a dialog for a Verdict: `confirm`
// gets `confirmed`, `select` the option that says the verdict ("Allow", "Yes" / "Deny", "No", …)
// or is dismissed; free text (`input`, `editor`) is dismissed, as nobody typed anything; during a
// cancel every dialog is dismissed. The fire-and-forget methods (notify, setStatus, setWidget,
// setTitle, set_editor_text) want no answer.
import type { ApprovalQuestion } from '../agents/types.js';
import { oneLine, type Verdict } from './approval.js';

export type UiAnswer =
  | { type: 'extension_ui_response'; id: string; confirmed: boolean }
  | { type: 'extension_ui_response'; id: string; value: string }
  | { type: 'extension_ui_response'; id: string; cancelled: true };

const WORDS: Record<'allow' | 'deny', RegExp> = {
  allow: /^\s*(allow|yes|approve|accept|proceed|ok|continue|run)\b/i,
  deny: /^\s*(deny|no|reject|block|cancel|abort|don'?t|do not|skip)\b/i,
};

const DIALOGS = new Set(['confirm', 'select', 'input', 'editor']);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const optionsOf = (request: Record<string, unknown>): string[] =>
  Array.isArray(request.options) ? request.options.filter((o): o is string => typeof o === 'string') : [];

/**
 * The question behind a dialog, or undefined for one no person is asked about. pi names no tool,
 * so the kind is the dialog's title (its first line): allowing it for the chat allows that dialog
 * again, never another extension's.
 */
export function piQuestion(request: Record<string, unknown>): ApprovalQuestion | undefined {
  if (typeof request.id !== 'string') return undefined;
  const title = text(request.title).trim();
  const message = text(request.message).trim();
  if (request.method === 'select') {
    const options = optionsOf(request);
    if (!options.some((o) => WORDS.allow.test(o) || WORDS.deny.test(o))) return undefined;
  } else if (request.method !== 'confirm') return undefined;
  const head = oneLine(title.split('\n')[0] || message.split('\n')[0] || 'confirm', 60);
  // Whole and exact: the chat is shown what the dialog says or nothing (core/interaction-text.ts).
  const summary = [title, message].filter(Boolean).join(': ') || 'confirm an extension’s question';
  return { toolKind: `pi:${head}`, summary };
}

/** The answer to one request, or undefined when the request wants none. */
export function answerUi(request: Record<string, unknown>, verdict: Verdict): UiAnswer | undefined {
  const id = request.id;
  if (typeof id !== 'string') return undefined;
  const method = request.method;
  if (typeof method !== 'string' || !DIALOGS.has(method)) return undefined;
  const dismiss: UiAnswer = { type: 'extension_ui_response', id, cancelled: true };
  if (verdict.type === 'cancelled') return dismiss;
  const allow = verdict.type !== 'deny';
  if (method === 'confirm') return { type: 'extension_ui_response', id, confirmed: allow };
  if (method === 'select') {
    const pick = optionsOf(request).find((o) => WORDS[allow ? 'allow' : 'deny'].test(o));
    return pick === undefined ? dismiss : { type: 'extension_ui_response', id, value: pick };
  }
  return dismiss;
}
