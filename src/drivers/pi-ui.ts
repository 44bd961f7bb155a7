// Answers pi's `extension_ui_request` dialogs without a person. pi itself never asks before a tool
// runs; its extensions do (a permission-gate extension calls `ctx.ui.confirm`), and in RPC mode a
// dialog blocks the turn until the client answers. So every dialog gets an answer at once:
// `confirm` is the configured policy; `select` picks the option that says the policy in words
// ("Allow", "Yes" / "Deny", "No", …) or is dismissed; free text (`input`, `editor`) is dismissed,
// as nobody typed anything. During a cancel every dialog is dismissed. The fire-and-forget
// methods (notify, setStatus, setWidget, setTitle, set_editor_text) want no answer.
import type { PermissionPolicy } from './types.js';

export type UiAnswer =
  | { type: 'extension_ui_response'; id: string; confirmed: boolean }
  | { type: 'extension_ui_response'; id: string; value: string }
  | { type: 'extension_ui_response'; id: string; cancelled: true };

const WORDS: Record<PermissionPolicy, RegExp> = {
  allow: /^\s*(allow|yes|approve|accept|proceed|ok|continue|run)\b/i,
  deny: /^\s*(deny|no|reject|block|cancel|abort|don'?t|do not|skip)\b/i,
};

/** The answer to one request, or undefined when the request wants none. */
export function answerUi(
  request: Record<string, unknown>,
  policy: PermissionPolicy,
  cancelling: boolean,
): UiAnswer | undefined {
  const id = request.id;
  if (typeof id !== 'string') return undefined;
  const method = request.method;
  if (method !== 'confirm' && method !== 'select' && method !== 'input' && method !== 'editor')
    return undefined;
  const dismiss: UiAnswer = { type: 'extension_ui_response', id, cancelled: true };
  if (cancelling) return dismiss;
  if (method === 'confirm') return { type: 'extension_ui_response', id, confirmed: policy === 'allow' };
  if (method === 'select') {
    const options = Array.isArray(request.options) ? request.options : [];
    const pick = options.find((o): o is string => typeof o === 'string' && WORDS[policy].test(o));
    return pick === undefined ? dismiss : { type: 'extension_ui_response', id, value: pick };
  }
  return dismiss;
}
