// Arbitrary form bodies POSTed to the real Twilio express app on 127.0.0.1, signed (over exactly what
// the server's body parser will see), unsigned, or forged. Properties: never a 5xx and never a crash
// (the server still answers afterwards); unsigned or forged → 403 and nothing stored; signed but
// malformed → 400 and nothing stored; a stored row only ever comes with a 200, with the body verbatim;
// no connection leaves for anywhere but the webhook itself (media URLs in bodies are not fetched unless
// they are on the configured API origin, here a closed port on 127.0.0.1).
import { createRequire } from 'node:module';
import fc from 'fast-check';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseInboundParams } from '../../src/channels/twilio/params.js';
import { ACCOUNT, TOKEN } from '../channels/twilio/helpers/fake-twilio.js';
import { createInbox, type Harness, startChannel, twilioConfig } from '../channels/twilio/helpers/harness.js';
import { recordConnections } from './spy.js';

// The parser express.urlencoded({ extended: false }) uses, with its options, so a "signed" request is
// signed over the very params the server checks (as Twilio signs what it sends).
const qs = createRequire(import.meta.url)('qs') as {
  parse(s: string, o: Record<string, unknown>): Record<string, unknown>;
};
const parseForm = (body: string): Record<string, unknown> =>
  body.length === 0
    ? {}
    : qs.parse(body, {
        allowPrototypes: true,
        depth: 0,
        parameterLimit: 500,
        arrayLimit: 500,
        strictDepth: true,
      });

const PATH = '/twilio/inbound';
const ALLOWED = '+15551234567';
let h: Harness & { rows: () => { message_id: string; text: string }[] };
let url: string;

beforeAll(async () => {
  let rows: () => { message_id: string; text: string }[] = () => [];
  const harness = await startChannel(twilioConfig({ allowFrom: [ALLOWED] }), (db) => {
    const inbox = createInbox(db);
    rows = inbox.rows;
    return inbox.handler;
  });
  h = { ...harness, rows: () => rows() };
  url = `${h.base}${PATH}`;
});

afterAll(async () => {
  await h.stop();
});

// ---- generators ----

const sidArb = fc.oneof(
  fc.stringMatching(/^SM[0-9a-f]{32}$/),
  fc.constantFrom('', 'SM', `SM${'g'.repeat(32)}`, '../../etc/passwd', `SM${'1'.repeat(32)}\n`),
);
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\0', '%00', '%', '%zz', '%E0%A4%A', '=', '&', '[]', '__proto__', 'constructor'),
);
const keyArb = fc.oneof(
  fc.constantFrom(
    'MessageSid',
    'AccountSid',
    'From',
    'To',
    'Body',
    'ProfileName',
    'NumMedia',
    'MediaUrl0',
    'MediaContentType0',
    'MediaUrl1',
    '__proto__',
    'constructor',
    'hasOwnProperty',
    'toString',
    'From[]',
    'Body[x]',
    '__proto__[MessageSid]',
  ),
  text,
);
const valueFor = (key: string) => {
  switch (key) {
    case 'MessageSid':
      return sidArb;
    case 'AccountSid':
      return fc.constantFrom(ACCOUNT, `AC${'b'.repeat(32)}`, '');
    case 'From':
      return fc.oneof(
        fc.constantFrom(ALLOWED, `whatsapp:${ALLOWED}`, '+15550000001', '', ' ', `${ALLOWED}\n`),
        text,
      );
    case 'NumMedia':
      return fc.constantFrom('0', '1', '2', '5', '11', 'abc', '-1', '1e3', '001', ' 1');
    case 'MediaUrl0':
    case 'MediaUrl1':
      return fc.constantFrom(
        'http://169.254.169.254/latest/meta-data/',
        'http://127.0.0.1:1/x',
        'file:///etc/passwd',
        'https://[::1]/x',
        'javascript:alert(1)',
        '',
      );
    case 'MediaContentType0':
      return fc.constantFrom('image/png', 'text/html; charset=utf-8', '../x', '', 'a/b\r\nX: y');
    default:
      return text;
  }
};
const pair = keyArb.chain((k) => valueFor(k).map((v) => [k, v] as [string, string]));
/** A Twilio-like body: the core fields mostly present, then any extra pairs (duplicates allowed). */
const formBody = fc
  .tuple(
    fc.record(
      {
        MessageSid: sidArb,
        From: valueFor('From'),
        Body: text,
        NumMedia: valueFor('NumMedia'),
        AccountSid: valueFor('AccountSid'),
      },
      { requiredKeys: [] },
    ),
    fc.array(pair, { maxLength: 6 }),
  )
  .map(([core, extra]) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(core)) p.append(k, v as string);
    for (const [k, v] of extra) p.append(k, v);
    return p.toString();
  });
/** Well-formed from an allowed sender, with a hostile text and profile name: these are stored. */
const goodBody = fc
  .tuple(fc.stringMatching(/^SM[0-9a-f]{32}$/), text, text, fc.constantFrom(ALLOWED, `whatsapp:${ALLOWED}`))
  .map(([sid, body, name, from]) =>
    new URLSearchParams({
      MessageSid: sid,
      AccountSid: ACCOUNT,
      From: from,
      To: '+15550000000',
      Body: body,
      ProfileName: name,
      NumMedia: '0',
    }).toString(),
  );
const rawBody = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 100 }),
  fc.constantFrom('%', '%%%', 'a=%E0%A4%A', '&&&=&', `${'a=1&'.repeat(600)}`, '=x', 'MessageSid'),
);
const mode = fc.constantFrom(
  'signed',
  'signed',
  'unsigned',
  'forged-url',
  'forged-token',
  'garbage-sig',
  'signed-json',
);

function sign(body: string, signedUrl = url, token = TOKEN): string {
  return twilio.getExpectedTwilioSignature(token, signedUrl, parseForm(body) as Record<string, string>);
}

async function post(body: string, m: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  let parsedOk = true;
  try {
    parseForm(body);
  } catch {
    parsedOk = false;
  }
  if (m === 'signed' && parsedOk) headers['x-twilio-signature'] = sign(body);
  if (m === 'forged-url' && parsedOk) headers['x-twilio-signature'] = sign(body, `${url}?x=1`);
  if (m === 'forged-token' && parsedOk) headers['x-twilio-signature'] = sign(body, url, `${TOKEN}x`);
  if (m === 'garbage-sig') headers['x-twilio-signature'] = 'AAAA';
  if (m === 'signed-json') {
    // Signed over no parameters (the form parser leaves a JSON body alone), but not a form.
    headers['content-type'] = 'application/json';
    headers['x-twilio-signature'] = twilio.getExpectedTwilioSignature(TOKEN, url, {});
  }
  return fetch(url, { method: 'POST', headers, body });
}

function expectedParse(body: string) {
  try {
    return parseInboundParams(parseForm(body));
  } catch (err) {
    return { ok: false as const, reason: `parser threw: ${(err as Error).message}` };
  }
}

describe('hostile webhook bodies', () => {
  it('never 5xx; unsigned or forged → 403; malformed signed → 400; nothing stored but with a 200', async () => {
    const net = recordConnections();
    const port = Number(new URL(h.base).port);
    const seen = new Set<number>();
    try {
      await fc.assert(
        fc.asyncProperty(fc.oneof(formBody, rawBody, goodBody), mode, async (body, m) => {
          const before = h.rows().length;
          const res = await post(body, m);
          const status = res.status;
          await res.arrayBuffer();
          seen.add(status);
          const stored = h.rows().slice(before);
          expect(status).toBeLessThan(500);
          // The form parser refuses an oversized body (over 500 parameters or 100 kB) before any check.
          if (status === 413) expect(body.split('&').length > 500 || body.length > 100_000).toBe(true);
          if (m !== 'signed' && m !== 'signed-json' && status !== 413) expect(status).toBe(403);
          if (status !== 200) expect(stored).toEqual([]);
          if (m === 'signed-json') expect(status).toBe(400);
          if (m === 'signed' && status !== 413) {
            const parsed = expectedParse(body);
            // Well-formed and signed is acknowledged; malformed and signed is a 400.
            if (!parsed.ok) expect(status, parsed.reason).toBe(400);
            else if (parsed.value.accountSid && parsed.value.accountSid !== ACCOUNT) expect(status).toBe(400);
            else expect(status).toBe(200);
          }
          for (const row of stored) {
            const parsed = expectedParse(body);
            expect(parsed.ok).toBe(true);
            if (parsed.ok) expect(row.text).toBe(parsed.value.body);
          }
          for (const c of net.connects) {
            if (!(c.host === '127.0.0.1' && (c.port === port || c.port === 9))) {
              throw new Error(`connection to ${c.host}:${c.port}`);
            }
          }
        }),
        { numRuns: 300 },
      );
    } finally {
      net.restore();
    }
    // The generators reached acceptance, refusal of forgeries and refusal of malformed bodies.
    for (const s of [200, 400, 403]) expect(seen.has(s), `status ${s} seen`).toBe(true);
    expect(h.rows().length).toBeGreaterThan(0);
    // Still alive and still strict.
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(res.status).toBe(403);
  });

  it('the status callback path takes the same abuse without a 5xx', async () => {
    const statusUrl = `${h.base}${PATH}/status`;
    await fc.assert(
      fc.asyncProperty(fc.oneof(formBody, rawBody), fc.boolean(), async (body, signed) => {
        const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
        if (signed) {
          try {
            headers['x-twilio-signature'] = twilio.getExpectedTwilioSignature(
              TOKEN,
              statusUrl,
              parseForm(body) as Record<string, string>,
            );
          } catch {}
        }
        const res = await fetch(statusUrl, { method: 'POST', headers, body });
        await res.arrayBuffer();
        expect(res.status).toBeLessThan(500);
        const oversized = body.split('&').length > 500 || body.length > 100_000;
        if (!signed) expect(res.status).toBe(oversized ? 413 : 403);
      }),
      { numRuns: 100 },
    );
  });
});
