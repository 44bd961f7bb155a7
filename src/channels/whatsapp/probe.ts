// The liveness probe: a device-list query (USync, `devices` protocol) about the account itself.
//
// Why this query and not another:
// - Baileys' own keep-alive is an `iq xmlns="w:p"` ping answered at WhatsApp's edge; it succeeds on a
//   socket whose message stream has died (openclaw#62258, Baileys#1640), so it proves nothing more.
// - A message to the self-chat would show up in the owner's chats, and it never comes back to the
//   device that sent it: Baileys' echo of our own send is local (emitOwnEvents), not a round trip.
// - A USync query is answered by WhatsApp's account service for this logged-in session, and the
//   answer lists the account's linked devices. Our device is in that list only while the phone still
//   has it linked (Baileys' extractDeviceJids skips "this device" in the same answer when it sends), so
//   the probe also catches a link removed on the phone without a close event. It is an IQ: nothing
//   is sent to any chat, nothing reaches messages.upsert, no agent runs.
// Cost: one request and one answer of a few hundred bytes, only after a quiet period.
import { jidDecode, jidNormalizedUser, USyncQuery, USyncUser } from '@whiskeysockets/baileys';
import type { WaSocket } from './socket.js';

export type ProbeOutcome = { ok: true } | { ok: false; error: string };

interface DeviceList {
  deviceList?: { id: number }[];
}

export async function probeOwnDevice(
  sock: Pick<WaSocket, 'user' | 'executeUSyncQuery'>,
): Promise<ProbeOutcome> {
  const me = sock.user?.id;
  const own = me ? jidDecode(me) : undefined;
  if (!me || !own) return { ok: false, error: 'the socket has no account yet' };
  const query = new USyncQuery()
    .withContext('background')
    .withDeviceProtocol()
    .withUser(new USyncUser().withId(jidNormalizedUser(me)));
  let result: Awaited<ReturnType<WaSocket['executeUSyncQuery']>>;
  try {
    result = await sock.executeUSyncQuery(query);
  } catch (err) {
    return { ok: false, error: `the device-list query failed: ${(err as Error).message}` };
  }
  // Baileys' query() resolves undefined when its own timeout passes without an answer.
  if (!result) return { ok: false, error: 'WhatsApp did not answer the device-list query' };
  const devices = (result.list[0]?.devices as DeviceList | undefined)?.deviceList;
  if (!Array.isArray(devices)) return { ok: false, error: 'WhatsApp answered without a device list' };
  // Device 0 is the phone; a companion (this relay) has its own number in `me.id` (…:7@s.whatsapp.net).
  if (!devices.some((d) => d.id === (own.device ?? 0)))
    return { ok: false, error: "this device is no longer in the account's linked devices" };
  return { ok: true };
}
