// Reads Twilio's inbound-message parameters defensively. Everything here is untrusted text, even on a
// signed request: a malformed one is refused with a reason (logged, never the body) and nothing stored.
// Pure; table-tested.

export interface InboundMediaRef {
  url: string;
  contentType: string;
}

export interface ParsedInbound {
  messageSid: string;
  accountSid?: string;
  from: string;
  to?: string;
  body: string;
  /** WhatsApp display name: attacker-controlled, for display only. */
  profileName?: string;
  /** STOP / START / HELP when a Messaging Service with Advanced Opt-Out matched a keyword. */
  optOutType?: string;
  media: InboundMediaRef[];
  /** A place shared through WhatsApp (`Latitude`, `Longitude`, `Address`, `Label`): unchecked text. */
  place?: SharedPlaceParams;
}

export interface SharedPlaceParams {
  latitude?: string;
  longitude?: string;
  address?: string;
  label?: string;
}

export type ParseResult = { ok: true; value: ParsedInbound } | { ok: false; reason: string };

/** Twilio documents at most 10 media per message. */
export const MAX_MEDIA = 10;
const SID = /^[A-Z]{2}[0-9a-fA-F]{32}$/;

type Params = Record<string, unknown>;

/** One value of a parameter; a repeated or non-string value counts as malformed. */
function one(p: Params, key: string): { ok: true; value?: string } | { ok: false } {
  const v = p[key];
  if (v === undefined) return { ok: true };
  return typeof v === 'string' ? { ok: true, value: v } : { ok: false };
}

export function parseInboundParams(body: unknown): ParseResult {
  if (!body || typeof body !== 'object') return { ok: false, reason: 'no form parameters' };
  const p = body as Params;
  const fields: Record<string, string | undefined> = {};
  for (const key of [
    'MessageSid',
    'AccountSid',
    'From',
    'To',
    'Body',
    'ProfileName',
    'NumMedia',
    'OptOutType',
    'Latitude',
    'Longitude',
    'Address',
    'Label',
  ]) {
    const r = one(p, key);
    if (!r.ok) return { ok: false, reason: `${key} is repeated or not text` };
    fields[key] = r.value;
  }
  const messageSid = fields.MessageSid;
  if (!messageSid) return { ok: false, reason: 'missing MessageSid' };
  if (!SID.test(messageSid)) return { ok: false, reason: 'MessageSid is not a Twilio SID' };
  const from = fields.From?.trim();
  if (!from) return { ok: false, reason: 'missing From' };
  if (from.length > 64 || /[\u0000-\u001f\u007f]/.test(from))
    return { ok: false, reason: 'From is not an address' };

  const media: InboundMediaRef[] = [];
  const numRaw = fields.NumMedia ?? '0';
  if (!/^\d{1,3}$/.test(numRaw)) return { ok: false, reason: 'NumMedia is not a number' };
  const num = Number(numRaw);
  if (num > MAX_MEDIA) return { ok: false, reason: `NumMedia over ${MAX_MEDIA}` };
  for (let i = 0; i < num; i++) {
    const url = one(p, `MediaUrl${i}`);
    const type = one(p, `MediaContentType${i}`);
    if (!url.ok || !type.ok) return { ok: false, reason: `MediaUrl${i} is repeated or not text` };
    if (!url.value) return { ok: false, reason: `MediaUrl${i} missing` };
    if (!isHttpUrl(url.value)) return { ok: false, reason: `MediaUrl${i} is not an http(s) URL` };
    const contentType = type.value?.trim() || 'application/octet-stream';
    if (!/^[\w.+-]+\/[\w.+-]+(;.*)?$/.test(contentType))
      return { ok: false, reason: `MediaContentType${i} is not a MIME type` };
    media.push({ url: url.value, contentType });
  }

  return {
    ok: true,
    value: {
      messageSid,
      accountSid: fields.AccountSid,
      from,
      to: fields.To,
      body: fields.Body ?? '',
      profileName: fields.ProfileName?.trim() || undefined,
      optOutType: fields.OptOutType?.trim() || undefined,
      media,
      ...placeOf(fields),
    },
  };
}

function placeOf(f: Record<string, string | undefined>): { place?: SharedPlaceParams } {
  if (f.Latitude === undefined && f.Longitude === undefined && !f.Address && !f.Label) return {};
  const place: SharedPlaceParams = {};
  if (f.Latitude !== undefined) place.latitude = f.Latitude;
  if (f.Longitude !== undefined) place.longitude = f.Longitude;
  if (f.Address) place.address = f.Address;
  if (f.Label) place.label = f.Label;
  return { place };
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}
