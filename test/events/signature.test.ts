// Who may call a hook, as a table: GitHub's signature header, a bearer secret, and everything wrong.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkHookAuth, signBody } from '../../src/events/signature.js';

const SECRET = 'a-hook-secret-of-some-length';
const BODY = Buffer.from('{"action":"completed","workflow_run":{"conclusion":"failure"}}');
// Computed independently of signBody, as GitHub does it.
const GOOD = `sha256=${createHmac('sha256', SECRET).update(BODY).digest('hex')}`;

describe('checkHookAuth', () => {
  const rows: [string, { signature?: string; authorization?: string }, string][] = [
    ['GitHub signature', { signature: GOOD }, 'ok'],
    ['signature in upper-case hex', { signature: `sha256=${GOOD.slice(7).toUpperCase()}` }, 'ok'],
    ['bearer', { authorization: `Bearer ${SECRET}` }, 'ok'],
    ['bearer, lower-case scheme', { authorization: `bearer ${SECRET}` }, 'ok'],
    ['both good', { signature: GOOD, authorization: `Bearer ${SECRET}` }, 'ok'],
    ['nothing', {}, 'missing'],
    ['signature of another body', { signature: signBody('{"other":1}', SECRET) }, 'bad'],
    ['signature under another secret', { signature: signBody(BODY, `${SECRET}x`) }, 'bad'],
    [
      'sha1 shape (X-Hub-Signature)',
      { signature: `sha1=${createHmac('sha1', SECRET).update(BODY).digest('hex')}` },
      'bad',
    ],
    ['signature without prefix', { signature: GOOD.slice('sha256='.length) }, 'bad'],
    ['signature cut short', { signature: GOOD.slice(0, -2) }, 'bad'],
    ['empty signature', { signature: '' }, 'bad'],
    ['wrong bearer', { authorization: 'Bearer nope' }, 'bad'],
    ['bearer a prefix of the secret', { authorization: `Bearer ${SECRET.slice(0, -1)}` }, 'bad'],
    ['basic auth', { authorization: `Basic ${Buffer.from(`x:${SECRET}`).toString('base64')}` }, 'bad'],
    [
      'good bearer but a wrong signature',
      { signature: signBody('x', SECRET), authorization: `Bearer ${SECRET}` },
      'bad',
    ],
    ['good signature but a wrong bearer', { signature: GOOD, authorization: 'Bearer nope' }, 'bad'],
  ];
  it.each(rows)('%s → %s', (_name, headers, want) => {
    expect(checkHookAuth(headers, BODY, SECRET).type).toBe(want);
  });

  it('signBody gives the header GitHub sends', () => {
    expect(signBody(BODY, SECRET)).toBe(GOOD);
  });
});
