// The folder name of one chat under an agent's folder (`workspace: 'per-chat'`). Pure.
// A chat key holds characters a path must not (`:`, `/` in no channel today, `@` in WhatsApp JIDs);
// they are flattened, and a short hash of the whole key keeps two keys that flatten alike apart
// (`twilio:+1555` and `twilio:_1555`).
import { createHash } from 'node:crypto';

export function chatFolderName(chat: string): string {
  const flat = chat
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 48);
  const hash = createHash('sha256').update(chat).digest('hex').slice(0, 10);
  return `${flat || 'chat'}-${hash}`;
}
