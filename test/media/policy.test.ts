import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkMedia, checkReference, type MediaPolicy, mimeTypeFor } from '../../src/media/policy.js';
import { tempDir } from '../helpers/tmp.js';

// Layout: base/work is the root; base/outside holds a secret reachable through symlinks. `path` in
// the table is where the approved file really is (`source`); what is sent is a copy of it.
const base = realpathSync(tempDir('aw-policy-'));
const root = join(base, 'work');
const outside = join(base, 'outside');
mkdirSync(join(root, 'sub', 'deeper'), { recursive: true });
mkdirSync(outside);
writeFileSync(join(root, 'a.png'), 'png');
writeFileSync(join(root, 'my report.pdf'), 'pdf');
writeFileSync(join(root, 'sub', 'b.txt'), 'b');
writeFileSync(join(root, 'big.bin'), Buffer.alloc(2048));
writeFileSync(join(root, '%2e%2e'), 'literal name');
writeFileSync(join(outside, 'secret.txt'), 'secret');
symlinkSync(join(outside, 'secret.txt'), join(root, 'leak.png'));
symlinkSync(outside, join(root, 'out'));
symlinkSync(join(root, 'a.png'), join(root, 'sub', 'alias.png'));
execFileSync('mkfifo', [join(root, 'pipe')]);
// A root given through a symlink still works: roots are compared on real paths too.
symlinkSync(root, join(base, 'root-link'));

const publicDns: Record<string, string[]> = {
  'example.com': ['93.184.216.34', '2606:2800:220:1::1'],
  'mixed.example': ['93.184.216.34', '10.0.0.7'],
  'rebind.example': ['127.0.0.1'],
  'mapped.example': ['::ffff:192.168.1.1'],
};
const resolveHost = async (host: string): Promise<string[]> => {
  const a = publicDns[host];
  if (!a) throw new Error('ENOTFOUND');
  return a;
};
const staging = join(base, 'state', 'staged');
const policy: MediaPolicy = {
  allowedRoots: [root],
  baseDir: root,
  maxBytes: 1024,
  allowUrls: true,
  resolveHost,
  stagingDir: staging,
};
/** An approved file is sent from its copy in the staging folder, with the original's bytes. */
function expectStagedCopyOf(item: { type: string; path?: string }, original: string): void {
  expect(item.path?.startsWith(`${staging}${sep}`)).toBe(true);
  expect(readFileSync(item.path!)).toEqual(readFileSync(original));
  expect(statSync(item.path!).mode & 0o777).toBe(0o600);
}

const table: { ref: string; code?: string; path?: string }[] = [
  { ref: './a.png', path: join(root, 'a.png') },
  { ref: 'a.png', path: join(root, 'a.png') },
  { ref: join(root, 'a.png'), path: join(root, 'a.png') },
  { ref: 'my report.pdf', path: join(root, 'my report.pdf') },
  { ref: 'sub/../sub/b.txt', path: join(root, 'sub', 'b.txt') },
  { ref: 'sub/alias.png', path: join(root, 'a.png') },
  { ref: '%2e%2e', path: join(root, '%2e%2e') },
  { ref: '../outside/secret.txt', code: 'outside_roots' },
  { ref: join(outside, 'secret.txt'), code: 'outside_roots' },
  { ref: 'leak.png', code: 'outside_roots' },
  { ref: 'out/secret.txt', code: 'outside_roots' },
  { ref: '/etc/passwd', code: 'outside_roots' },
  { ref: 'sub', code: 'not_a_file' },
  { ref: 'pipe', code: 'not_a_file' },
  { ref: 'missing.png', code: 'not_found' },
  { ref: '%2e%2e%2foutside%2fsecret.txt', code: 'not_found' },
  { ref: 'big.bin', code: 'too_large' },
  { ref: '~/a.png', code: 'home_path' },
  { ref: '~root/.ssh/id_rsa', code: 'home_path' },
  { ref: `file://${join(root, 'a.png')}`, code: 'scheme' },
  { ref: 'data:image/png;base64,AAAA', code: 'scheme' },
  { ref: 'ftp://example.com/a.png', code: 'scheme' },
  { ref: 'javascript:alert(1)', code: 'scheme' },
  { ref: 'a.png\0', code: 'invalid' },
  { ref: 'http://user:pw@example.com/a.png', code: 'invalid' },
  { ref: 'https://example.com/a.png' },
  { ref: 'HTTPS://EXAMPLE.COM/a.png' },
  { ref: 'http://[2606:4700::1111]/x' },
  { ref: 'http://127.0.0.1/a.png', code: 'private_address' },
  { ref: 'http://127.1/', code: 'private_address' },
  { ref: 'http://2130706433/', code: 'private_address' },
  { ref: 'http://0x7f000001/', code: 'private_address' },
  { ref: 'http://0x7f.1/', code: 'private_address' },
  { ref: 'http://0177.0.0.1/', code: 'private_address' },
  { ref: 'http://%31%32%37.0.0.1/', code: 'private_address' },
  { ref: 'http://0.0.0.0:8080/', code: 'private_address' },
  { ref: 'http://10.1.2.3/', code: 'private_address' },
  { ref: 'http://172.16.5.4/', code: 'private_address' },
  { ref: 'http://192.168.1.1/', code: 'private_address' },
  { ref: 'http://100.64.0.1/', code: 'private_address' },
  { ref: 'http://169.254.169.254/latest/meta-data/', code: 'private_address' },
  { ref: 'http://224.0.0.1/', code: 'private_address' },
  { ref: 'http://[::1]/', code: 'private_address' },
  { ref: 'http://[::]/', code: 'private_address' },
  { ref: 'http://[::ffff:127.0.0.1]/', code: 'private_address' },
  { ref: 'http://[::ffff:7f00:1]/', code: 'private_address' },
  { ref: 'http://[fe80::1]/', code: 'private_address' },
  { ref: 'http://[fc00::1]/', code: 'private_address' },
  { ref: 'http://[fd12:3456::1]/', code: 'private_address' },
  { ref: 'http://[2001:db8::1]/', code: 'private_address' },
  { ref: 'http://[64:ff9b::7f00:1]/', code: 'private_address' },
  { ref: 'http://localhost:3000/', code: 'private_address' },
  { ref: 'http://LOCALHOST./', code: 'private_address' },
  { ref: 'http://api.localhost/', code: 'private_address' },
  { ref: 'http://printer.local/', code: 'private_address' },
  { ref: 'http://mixed.example/a.png', code: 'private_address' },
  { ref: 'http://rebind.example/', code: 'private_address' },
  { ref: 'http://mapped.example/', code: 'private_address' },
  { ref: 'http://nowhere.example/', code: 'unresolvable' },
  { ref: 'http://[not-an-ip/', code: 'invalid' },
  { ref: `{"blob": "${'x'.repeat(10_000)}"}`, code: 'not_found' },
];

describe('media policy', () => {
  it.each(table)('$ref → $code', async ({ ref, code, path }) => {
    const d = await checkReference(ref, policy);
    if (code) {
      expect(d).toMatchObject({ type: 'refused', code });
      if (d.type === 'refused') expect(d.reason.length).toBeGreaterThan(0);
    } else {
      expect(d.type).toBe('approved');
      if (d.type === 'approved' && path) {
        expect(d.source).toBe(path);
        expectStagedCopyOf(d.item, path);
      }
    }
  });

  it('describes approved files fully', async () => {
    const [d] = await checkMedia(['./my report.pdf'], policy);
    expect(d).toEqual({
      type: 'approved',
      ref: './my report.pdf',
      source: join(root, 'my report.pdf'),
      item: {
        type: 'file',
        path: expect.stringMatching(/^.*\.pdf$/),
        fileName: 'my report.pdf',
        mimeType: 'application/pdf',
        sizeBytes: 3,
      },
    });
    if (d?.type === 'approved') expectStagedCopyOf(d.item, join(root, 'my report.pdf'));
    expect(statSync(staging).mode & 0o777).toBe(0o700);
  });

  it('stages one copy for two names of one file, so it is sent once', async () => {
    const ds = await checkMedia(['a.png', './a.png', 'sub/alias.png', 'my report.pdf'], policy);
    const paths = ds.map((d) => (d.type === 'approved' && d.item.type === 'file' ? d.item.path : ''));
    expect(paths[0]).toBe(paths[1]);
    expect(paths[0]).toBe(paths[2]);
    expect(paths[3]).not.toBe(paths[0]);
  });

  it('stops staging when the staging folder is full, with a reason the chat can read', async () => {
    const full = { ...policy, stagingDir: join(base, 'state', 'small'), stagingCapBytes: 4 };
    const ds = await checkMedia(['a.png', 'my report.pdf'], full);
    expect(ds.map((d) => d.type)).toEqual(['approved', 'refused']);
    expect(ds[1]).toMatchObject({
      code: 'staging_full',
      reason: expect.stringContaining('waiting to be sent'),
    });
  });

  it('keeps the decisions in the order of the references', async () => {
    const ds = await checkMedia(['a.png', 'leak.png', 'https://example.com/x'], policy);
    expect(ds.map((d) => d.type)).toEqual(['approved', 'refused', 'approved']);
  });

  it('accepts a root given through a symlink', async () => {
    const d = await checkReference('a.png', { ...policy, allowedRoots: [join(base, 'root-link')] });
    expect(d).toMatchObject({ type: 'approved', source: join(root, 'a.png') });
  });

  it('refuses URLs when they are turned off', async () => {
    const d = await checkReference('https://example.com/a.png', { ...policy, allowUrls: false });
    expect(d).toMatchObject({ type: 'refused', code: 'urls_disabled' });
  });

  it('allows nothing when no root exists', async () => {
    const d = await checkReference('a.png', { ...policy, allowedRoots: [join(base, 'nope')] });
    expect(d).toMatchObject({ type: 'refused', code: 'outside_roots' });
  });

  it('names MIME types by extension', () => {
    expect(mimeTypeFor('x.JPG')).toBe('image/jpeg');
    expect(mimeTypeFor('noext', 'real.ogg')).toBe('audio/ogg');
    expect(mimeTypeFor('x.unknown')).toBe('application/octet-stream');
  });
});

describe('media policy properties', () => {
  const segment = fc.constantFrom(
    '..',
    '.',
    '',
    '~',
    'a.png',
    'sub',
    'deeper',
    'out',
    'outside',
    'secret.txt',
    'leak.png',
    '%2e%2e',
    '%2f',
    '..%2f',
    'work',
  );
  const ref = fc
    .tuple(
      fc.constantFrom('', '/', `${base}/`, `${root}/`, './', 'file:', 'file://', 'data:'),
      fc.array(segment, { minLength: 1, maxLength: 7 }),
    )
    .map(([lead, segs]) => lead + segs.join('/'));

  it('never approves a file whose real path leaves the root', async () => {
    await fc.assert(
      fc.asyncProperty(ref, async (r) => {
        const d = await checkReference(r, policy);
        if (d.type === 'approved' && d.item.type === 'file') {
          expect(d.source?.startsWith(root + sep)).toBe(true);
          expect(d.source).not.toContain('secret');
          expect(readFileSync(d.item.path, 'utf8')).not.toBe('secret');
        }
      }),
      { numRuns: 400 },
    );
  });

  it('refuses every file: and data: reference', async () => {
    const scheme = fc.constantFrom('file', 'FILE', 'File', 'data', 'DATA', 'Data');
    await fc.assert(
      fc.asyncProperty(scheme, fc.string({ maxLength: 40 }), async (s, rest) => {
        const d = await checkReference(`${s}:${rest}`, policy);
        expect(d.type).toBe('refused');
      }),
    );
  });

  it('refuses private IPv4 in every spelling without asking DNS', async () => {
    const privateV4 = fc.oneof(
      fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
      fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
    );
    const noDns: MediaPolicy = {
      ...policy,
      resolveHost: async () => {
        throw new Error('DNS must not be asked for an IP literal');
      },
    };
    await fc.assert(
      fc.asyncProperty(privateV4, fc.nat(4), async (octets, form) => {
        const n = octets.reduce((acc, o) => acc * 256 + o, 0);
        const host = [
          octets.join('.'),
          String(n),
          `0x${n.toString(16)}`,
          octets.map((o) => `0${o.toString(8)}`).join('.'),
          `[::ffff:${octets.join('.')}]`,
        ][form];
        const d = await checkReference(`http://${host}/x.png`, noDns);
        expect(d).toMatchObject({ type: 'refused', code: 'private_address' });
      }),
    );
  });
});
