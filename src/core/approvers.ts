// Who may answer an approval (permissions.approvers). Pure; table-tested in
// test/core/approvers.test.ts.
//
// An entry is a sender id as the channel gives it (`+15551234567`, a Telegram user id), which counts
// on every channel, or `<channel>:<sender id>` for one channel only; `*` is anyone who may talk in
// the chat. Without the key the approver is the owner: the channel says who that is (the linked
// WhatsApp number, the first `allowFrom` entry, the person at the terminal), see queue/owner.ts.

import { listedSender } from './roles.js';

export function isApprover(
  entries: readonly string[] | undefined,
  channel: string,
  senderId: string,
  owner: string | undefined,
  /** `access.owners`: owners besides the channel's own, approvers by default like it. */
  owners: readonly string[] = [],
): boolean {
  if (!senderId) return false;
  if (entries === undefined)
    return (owner !== undefined && owner === senderId) || listedSender(owners, channel, senderId);
  return entries.some((e) => {
    if (e === '*') return true;
    const i = e.indexOf(':');
    // `<channel>:<sender id>`: that channel only (a channel name never holds a `:`).
    if (i > 0) return e.slice(0, i) === channel && e.slice(i + 1) === senderId;
    return e === senderId;
  });
}
