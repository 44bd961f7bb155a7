// Config `tools.sendTo`: which chats' runs may send_message to a named target (`to`), per target.
// A name in `targets` only, never a number the agent types: an agent is untrusted input, and a
// message to an arbitrary number would be agentwire writing to a stranger (docs/tools.md).
import { z } from 'zod';
import { parseChatKey } from '../core/types.js';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const sendToSchema = z
  .record(
    z.string().regex(NAME, 'a name from targets'),
    z
      .array(z.string().min(1).max(200))
      .max(100)
      .describe('The chats whose runs may write there: chat keys, names in targets, or "*" for every chat.'),
  )
  .default({})
  .describe(
    'Targets (names in `targets`) an agent may send_message to with `to`, each with the chats whose runs may. Absent: none.',
  );

/** Every key and entry of `tools.sendTo` checked against `targets`, as issues at their paths. */
export function sendToProblems(
  targets: Readonly<Record<string, string>>,
  sendTo: Readonly<Record<string, readonly string[]>>,
): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  for (const [name, from] of Object.entries(sendTo)) {
    if (!Object.hasOwn(targets, name))
      out.push({
        path: ['tools', 'sendTo', name],
        message: `"${name}" is not a name in targets: sendTo names a target, never a chat key or number`,
      });
    from.forEach((f, i) => {
      if (f === '*' || Object.hasOwn(targets, f) || parseChatKey(f.trim())) return;
      out.push({
        path: ['tools', 'sendTo', name, i],
        message: `"${f}" is neither a chat key like "telegram:123", a name in targets, nor "*"`,
      });
    });
  }
  return out;
}
