import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createTwilioChannel } from '../../../src/channels/twilio/index.js';
import type { InboundHandler } from '../../../src/channels/types.js';
import { storeOver } from '../../../src/store/sqlite/open.js';
import { ACCOUNT, TOKEN } from './helpers/fake-twilio.js';
import {
  captureLog,
  createInbox,
  type Harness,
  smsParams,
  startChannel,
  tempPaths,
  twilioConfig,
  twilioPost,
} from './helpers/harness.js';

const PATH = '/twilio/inbound';
type Row = { message_id: string; chat_id: string; text: string; media: string };
let h: (Harness & { rows: () => Row[] }) | undefined;
const children: ChildProcess[] = [];

afterEach(async () => {
  await h?.stop();
  h = undefined;
  for (const c of children.splice(0)) if (c.exitCode === null && c.pid) process.kill(c.pid, 'SIGKILL');
});

async function start(section: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}, after?: () => void) {
  let rows: () => Row[] = () => [];
  const harness = await startChannel(
    twilioConfig(section),
    (db) => {
      const inbox = createInbox(db, after);
      rows = inbox.rows;
      return inbox.handler;
    },
    { env },
  );
  h = { ...harness, rows: () => rows() };
  return h;
}

describe('twilio webhook: signatures', () => {
  it('accepts a correctly signed SMS, stores it once and answers an empty TwiML response', async () => {
    const { base, rows } = await start();
    const res = await twilioPost(`${base}${PATH}`, smsParams());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
    expect(await res.text()).toContain('<Response/>');
    expect(rows()).toEqual([
      { message_id: `SM${'1'.repeat(32)}`, chat_id: '+15551234567', text: 'hello agent', media: '[]' },
    ]);
  });

  it('normalises whatsapp: for the allow-list but keeps it in the chat id for replies', async () => {
    const { base, rows } = await start();
    const res = await twilioPost(
      `${base}${PATH}`,
      smsParams({ From: 'whatsapp:+15551234567', ProfileName: 'Eve' }),
    );
    expect(res.status).toBe(200);
    expect(rows()[0]?.chat_id).toBe('whatsapp:+15551234567');
  });

  it.each([
    ['a wrong signature', { signature: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' }],
    ['no signature', { signature: null }],
    ['a signature made with another token', { token: 'some-other-auth-token-xyz' }],
    ['a signature for another host', { signedUrl: 'https://evil.example/twilio/inbound' }],
  ])('refuses %s with 403 and leaves no trace', async (_name, opts) => {
    const { base, rows, capture } = await start();
    const params = smsParams({ Body: 'secret-body-text' });
    const res = await twilioPost(`${base}${PATH}?token=query-secret`, params, {
      signedUrl: `${base}${PATH}?token=query-secret`,
      ...opts,
    });
    expect(res.status).toBe(403);
    expect(rows()).toEqual([]);
    const log = capture.text();
    expect(log).toContain('signature rejected');
    for (const leak of [TOKEN, 'query-secret', 'secret-body-text', '+15551234567'])
      expect(log).not.toContain(leak);
    // No dedupe slot was consumed: the genuine delivery of the same MessageSid is stored.
    const genuine = await twilioPost(`${base}${PATH}`, params);
    expect(genuine.status).toBe(200);
    expect(rows()).toHaveLength(1);
  });

  it('counts the query string: a signature for ?x=1 does not validate ?x=2', async () => {
    const { base, rows } = await start();
    const signedUrl = `${base}${PATH}?x=1`;
    expect((await twilioPost(`${base}${PATH}?x=2`, smsParams(), { signedUrl })).status).toBe(403);
    expect((await twilioPost(`${base}${PATH}?x=1`, smsParams(), { signedUrl })).status).toBe(200);
    expect(rows()).toHaveLength(1);
  });

  it('rejects tampered parameters', async () => {
    const { base, rows } = await start();
    const params = smsParams();
    const signature = (await import('twilio')).default.getExpectedTwilioSignature(
      TOKEN,
      `${base}${PATH}`,
      params,
    );
    const res = await twilioPost(`${base}${PATH}`, { ...params, Body: 'rm -rf /' }, { signature });
    expect(res.status).toBe(403);
    expect(rows()).toEqual([]);
  });
});

describe('twilio webhook: behind a proxy (publicUrl)', () => {
  const publicUrl = 'https://public.example/wh?x=1';
  const section = { webhook: { path: '/local', publicUrl } };

  it.each([
    ['the configured public URL', publicUrl, 200],
    ['the public URL with its default port', 'https://public.example:443/wh?x=1', 200],
    ['the local URL the proxy forwards to', 'LOCAL', 403],
    ['another scheme', 'http://public.example/wh?x=1', 403],
    ['another host', 'https://other.example/wh?x=1', 403],
    ['another port', 'https://public.example:8443/wh?x=1', 403],
    ['another path', 'https://public.example/other?x=1', 403],
    ['another query', 'https://public.example/wh?x=2', 403],
    ['no query', 'https://public.example/wh', 403],
  ])('a request signed for %s gets %s', async (_name, signed, status) => {
    const { base, rows } = await start(section);
    const local = `${base}/local`;
    const res = await twilioPost(local, smsParams(), { signedUrl: signed === 'LOCAL' ? local : signed });
    expect(res.status).toBe(status);
    expect(rows()).toHaveLength(status === 200 ? 1 : 0);
  });
});

describe('twilio webhook: a publicUrl written with its default port', () => {
  it.each([
    ['without the port', 'https://public.example/wh', 200],
    ['with the port', 'https://public.example:443/wh', 200],
    ['with another port', 'https://public.example:8443/wh', 403],
  ])('accepts a request Twilio signed %s', async (_name, signed, status) => {
    const { base, rows } = await start({
      webhook: { path: '/local', publicUrl: 'https://public.example:443/wh' },
    });
    const res = await twilioPost(`${base}/local`, smsParams(), { signedUrl: signed });
    expect(res.status).toBe(status);
    expect(rows()).toHaveLength(status === 200 ? 1 : 0);
  });
});

describe('twilio webhook: fail closed and the insecure switch', () => {
  it('refuses everything when no auth token is configured', async () => {
    const { base, rows, capture } = await start({ authToken: undefined }, {});
    const res = await twilioPost(`${base}${PATH}`, smsParams());
    expect(res.status).toBe(500);
    expect(rows()).toEqual([]);
    expect(capture.text()).toContain('refuses every request');
  });

  it('takes the token from TWILIO_AUTH_TOKEN', async () => {
    const { base, rows } = await start({ authToken: undefined }, { TWILIO_AUTH_TOKEN: TOKEN });
    expect((await twilioPost(`${base}${PATH}`, smsParams())).status).toBe(200);
    expect(rows()).toHaveLength(1);
  });

  it('with insecureSkipSignature accepts unsigned requests and warns at every start', async () => {
    const harness = await start({ webhook: { insecureSkipSignature: true } });
    expect((await twilioPost(`${harness.base}${PATH}`, smsParams(), { signature: null })).status).toBe(200);
    expect(harness.rows()).toHaveLength(1);
    await harness.channel.stop();
    await harness.channel.start(async () => ({ type: 'duplicate' }));
    const warnings = harness.capture.lines.filter((l) => l.includes('signature checks are OFF'));
    expect(warnings).toHaveLength(2);
    expect(warnings.every((l) => JSON.parse(l).level === 40)).toBe(true);
  });
});

describe('twilio webhook: malformed but signed', () => {
  it.each([
    ['no From', { From: '' }, 'missing From'],
    ['a non-numeric NumMedia', { NumMedia: 'abc' }, 'NumMedia is not a number'],
    ['NumMedia without the media URLs', { NumMedia: '5' }, 'MediaUrl0 missing'],
    ['a MessageSid that is not a SID', { MessageSid: 'hello' }, 'MessageSid is not a Twilio SID'],
    ['another account', { AccountSid: `AC${'b'.repeat(32)}` }, 'AccountSid is not this account'],
  ])('refuses %s with 400, stores nothing and logs the reason, not the body', async (_n, over, reason) => {
    const { base, rows, capture } = await start();
    const params = smsParams({ Body: 'private-words', ...over });
    if (params.From === '') delete params.From;
    const res = await twilioPost(`${base}${PATH}`, params);
    expect(res.status).toBe(400);
    expect(rows()).toEqual([]);
    expect(capture.text()).toContain(reason);
    expect(capture.text()).not.toContain('private-words');
  });

  it('refuses a signed request that is not form-encoded', async () => {
    const { base, rows, capture } = await start();
    // Signed over no form parameters, as the server sees none in a JSON body.
    const res = await twilioPost(
      `${base}${PATH}`,
      {},
      { contentType: 'application/json', body: '{"From":"+1"}' },
    );
    expect(res.status).toBe(400);
    expect(rows()).toEqual([]);
    expect(capture.text()).toContain('content type is not form-encoded');
  });
});

describe('twilio webhook: storing and acknowledging', () => {
  it('two simultaneous deliveries of one MessageSid make one stored message, both get 200', async () => {
    const { base, rows, capture } = await start();
    const params = smsParams();
    const [a, b] = await Promise.all([
      twilioPost(`${base}${PATH}`, params),
      twilioPost(`${base}${PATH}`, params),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(rows()).toHaveLength(1);
    expect(capture.text()).toContain('duplicate delivery ignored');
  });

  it('a duplicate after a restart is still a duplicate (the record is durable)', async () => {
    const first = await start();
    await twilioPost(`${first.base}${PATH}`, smsParams());
    await first.stop();
    const again = await startChannel(twilioConfig({}), (db) => createInbox(db).handler, {
      paths: first.paths,
      db: first.db,
    });
    h = { ...again, rows: first.rows };
    expect((await twilioPost(`${again.base}${PATH}`, smsParams())).status).toBe(200);
    expect(first.rows()).toHaveLength(1);
  });

  it('answers 200 while the agent run it started is still going', async () => {
    let child: ChildProcess | undefined;
    const { base, rows } = await start({}, {}, () => {
      // The stand-in for a 30 s agent run, started in the background after the message is stored.
      child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
      children.push(child);
    });
    const res = await twilioPost(`${base}${PATH}`, smsParams());
    expect(res.status).toBe(200);
    expect(rows()).toHaveLength(1);
    expect(child).toBeDefined();
    expect(child?.exitCode).toBeNull();
    expect(child?.signalCode).toBeNull();
  });

  it('does not acknowledge a message the core failed to store: it retries, then asks Twilio to', async () => {
    let tries = 0;
    const failing: InboundHandler = async () => {
      tries++;
      return { type: 'failed', error: 'disk full' };
    };
    const harness = await startChannel(twilioConfig({}), () => failing);
    h = { ...harness, rows: () => [] };
    const res = await twilioPost(`${harness.base}${PATH}`, smsParams());
    expect(res.status).toBe(503);
    expect(tries).toBe(3);
    expect(harness.capture.text()).toContain('not stored');
  });
});

describe('twilio webhook: shared places', () => {
  it('a WhatsApp location (no Body) reaches the agent as one line with its coordinates', async () => {
    const { base, rows } = await start();
    const place = {
      From: 'whatsapp:+15551234567',
      Body: '',
      Latitude: '52.516275',
      Longitude: '13.377704',
      Label: 'Brandenburger\nTor',
      Address: 'Pariser Platz, Berlin',
    };
    expect((await twilioPost(`${base}${PATH}`, smsParams(place))).status).toBe(200);
    const withText = { ...place, MessageSid: `SM${'2'.repeat(32)}`, Body: 'meet here?', Latitude: '95' };
    expect((await twilioPost(`${base}${PATH}`, smsParams(withText))).status).toBe(200);
    expect(rows().map((r) => r.text)).toEqual([
      '[shared a location: 52.516275, 13.377704 — Brandenburger Tor — Pariser Platz, Berlin]',
      'meet here?\n\n[shared a location without coordinates: Brandenburger Tor — Pariser Platz, Berlin]',
    ]);
  });
});

describe('twilio webhook: allow-list', () => {
  it('drops strangers without a run, logging only a masked number', async () => {
    const { base, rows, capture } = await start();
    const res = await twilioPost(`${base}${PATH}`, smsParams({ From: '+15559876543' }));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<Response/>');
    expect(rows()).toEqual([]);
    expect(capture.text()).toContain('…6543');
    expect(capture.text()).not.toContain('+15559876543');
  });

  it('answers a stranger with the one static refusal text, at most once a day', async () => {
    const { base, rows } = await start({ refusalText: 'This number is private.' });
    const first = await twilioPost(`${base}${PATH}`, smsParams({ From: '+15559876543' }));
    expect(await first.text()).toContain('<Message>This number is private.</Message>');
    const second = await twilioPost(
      `${base}${PATH}`,
      smsParams({ From: '+15559876543', MessageSid: `SM${'2'.repeat(32)}` }),
    );
    expect(await second.text()).not.toContain('<Message>');
    expect(rows()).toEqual([]);
  });

  it('"*" lets anyone in', async () => {
    const { base, rows } = await start({ allowFrom: '*' });
    await twilioPost(`${base}${PATH}`, smsParams({ From: 'whatsapp:+4915112345678' }));
    expect(rows()[0]?.chat_id).toBe('whatsapp:+4915112345678');
  });

  it('the AccountSid check uses the configured account', async () => {
    const { base, rows } = await start();
    expect((await twilioPost(`${base}${PATH}`, smsParams({ AccountSid: ACCOUNT }))).status).toBe(200);
    expect(rows()).toHaveLength(1);
  });
});

describe('twilio webhook: server', () => {
  it('reports a port already in use instead of starting half-way', async () => {
    const first = await start();
    const port = Number(new URL(first.base).port);
    const second = createTwilioChannel({
      config: twilioConfig({ webhook: { port } }),
      paths: tempPaths(),
      store: storeOver(first.db),
      log: captureLog().log,
      env: {},
    });
    await expect(second.start(async () => ({ type: 'duplicate' }))).rejects.toThrow(
      /cannot listen on 127\.0\.0\.1/,
    );
    expect(second.status()).toMatchObject({ type: 'degraded' });
  });
});
