import { describe, expect, it } from 'vitest';
import { checkHop } from '../../src/media/guarded-get.js';

const dns = (answers: Record<string, string[]>) => async (host: string) => {
  const a = answers[host];
  if (!a) throw new Error('ENOTFOUND');
  return a;
};
const resolve = dns({
  'cdn.example': ['34.117.59.81'],
  'v6.example': ['2606:4700::6810:84e5'],
  'private.example': ['10.0.0.7'],
  'mixed.example': ['34.117.59.81', '192.168.1.1'],
  'empty.example': [],
  'api.local.test': ['127.0.0.1'],
});

describe('checkHop: where one hop of a download may connect', () => {
  it.each([
    ['https://cdn.example/a', false, { ok: true, address: '34.117.59.81' }],
    ['http://cdn.example/a', false, { ok: true, address: '34.117.59.81' }],
    ['https://v6.example/a', false, { ok: true, address: '2606:4700::6810:84e5' }],
    ['https://34.117.59.81/a', false, { ok: true, address: '34.117.59.81' }],
    [
      'https://private.example/a',
      false,
      { ok: false, message: 'private.example points at a private address' },
    ],
    ['https://mixed.example/a', false, { ok: false, message: 'mixed.example points at a private address' }],
    ['http://127.0.0.1:8080/a', false, { ok: false, message: '127.0.0.1 points at a loopback address' }],
    ['http://[::1]/a', false, { ok: false, message: '::1 points at a loopback address' }],
    [
      'http://169.254.169.254/latest',
      false,
      { ok: false, message: '169.254.169.254 points at a link-local address' },
    ],
    ['http://localhost:8080/a', false, { ok: false, message: 'localhost is this machine' }],
    ['http://printer.local/a', false, { ok: false, message: 'printer.local is this machine' }],
    ['https://nowhere.example/a', false, { ok: false, message: 'nowhere.example does not resolve' }],
    ['https://empty.example/a', false, { ok: false, message: 'empty.example does not resolve' }],
    ['file:///etc/passwd', false, { ok: false, message: 'file: is not http(s)' }],
    ['https://user:pw@cdn.example/a', false, { ok: false, message: 'a URL with credentials in it' }],
    // The origin the owner configured (twilio.apiBaseUrl) is taken as it is, addresses unchecked.
    ['http://api.local.test:9000/a', true, { ok: true, address: '127.0.0.1' }],
    ['http://127.0.0.1:9000/a', true, { ok: true, address: '127.0.0.1' }],
  ])('%s (trusted: %s)', async (url, trusted, expected) => {
    expect(await checkHop(new URL(url), trusted, resolve)).toEqual(expected);
  });
});
