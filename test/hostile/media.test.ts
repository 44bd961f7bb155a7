// Hostile MEDIA: lines, end to end through the path a reply takes: the claude parser, the relay's media
// policy (config `media.*`), the outbox items, and the real WhatsApp (fake socket) and Twilio (fake
// REST on 127.0.0.1, media host staging) send paths. Instrumented, not trusted: every node:fs call that
// names a path is recorded (vi.mock wraps the modules), every TCP connect in the process is recorded,
// DNS answers come from a table (no real resolver is asked), and a listener on 127.0.0.1 records any
// connection at all. Properties: no file outside the allowed root is opened or stat'ed, no connection
// goes anywhere but the fake Twilio REST server, Baileys is never handed a `{ url }`, nothing throws.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import { configSchema } from '../../src/config/schema.js';
import type { OutboundItem } from '../../src/core/types.js';
import { createLogger } from '../../src/log.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { composeRunReply } from '../../src/queue/compose.js';
import { type FakeTwilio, startFakeTwilio } from '../channels/twilio/helpers/fake-twilio.js';
import { createInbox, startChannel, twilioConfig } from '../channels/twilio/helpers/harness.js';
import { setup as waSetup } from '../channels/whatsapp/harness.js';
import { tempDir } from '../helpers/tmp.js';
import { fsCalls, inside, realOf, recordConnections } from './spy.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const { wrapFs } = await import('./spy.js');
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const names = ['open', 'stat', 'lstat', 'realpath', 'readFile', 'copyFile', 'opendir', 'readdir', 'access'];
  const wrapped = wrapFs(real, names);
  return { ...wrapped, default: wrapped };
});
vi.mock('node:fs', async (importOriginal) => {
  const { wrapFs } = await import('./spy.js');
  const real = await importOriginal<typeof import('node:fs')>();
  const names = ['createReadStream', 'openSync', 'readFileSync', 'statSync', 'copyFileSync'];
  const wrapped = wrapFs(real, names);
  return { ...wrapped, default: wrapped };
});
// Name → addresses; a name not in the table does not resolve. Asked names are recorded.
const dns = vi.hoisted(() => ({
  asked: [] as string[],
  table: {
    'public.test': ['93.184.216.34'],
    'rebind.test': ['127.0.0.1'],
    'loop6.test': ['::1'],
    'mapped.test': ['::ffff:127.0.0.1'],
    'meta.test': ['169.254.169.254'],
    'mixed.test': ['93.184.216.34', '10.0.0.1'],
  } as Record<string, string[]>,
}));
vi.mock('node:dns/promises', () => {
  const lookup = async (host: string) => {
    dns.asked.push(host);
    const a = dns.table[host];
    if (!a) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, default: { lookup } };
});

// Layout: base/work is the allowed root (and the agent's cwd); base/outside holds the secrets.
const base = realpathSync(tempDir('aw-hostile-media-'));
const root = join(base, 'work');
const outside = join(base, 'outside');
mkdirSync(join(root, 'sub'), { recursive: true });
mkdirSync(outside);
writeFileSync(join(root, 'a.png'), 'png');
writeFileSync(join(root, 'Q3 chart.png'), 'chart');
writeFileSync(join(root, 'sub', 'b.txt'), 'b');
writeFileSync(join(root, '%2e%2e'), 'a file literally named %2e%2e');
writeFileSync(join(outside, 'secret.txt'), 'SECRET');
execFileSync('mkfifo', [join(outside, 'fifo')]);
// Symlinks out of the root: direct, via a directory, absolute and relative chains, and loops.
symlinkSync(join(outside, 'secret.txt'), join(root, 'leak.png'));
symlinkSync(outside, join(root, 'out'));
symlinkSync('/etc/passwd', join(root, 'passwd.png'));
symlinkSync(join(outside, 'fifo'), join(root, 'fifo.png'));
symlinkSync(join(root, 'c2'), join(root, 'c1'));
symlinkSync('../outside/secret.txt', join(root, 'c2'));
symlinkSync(join(root, 'loop2'), join(root, 'loop1'));
symlinkSync(join(root, 'loop1'), join(root, 'loop2'));
// A chain that stays inside is fine.
symlinkSync(join(root, 'sub', 'alias.png'), join(root, 'in1'));
symlinkSync(join(root, 'a.png'), join(root, 'sub', 'alias.png'));

const config = configSchema.parse({ media: { allowedRoots: [root], allowUrls: true } });
// Approved files are copied here as they are checked; the copies are what the channels send.
const staging = join(base, 'state', 'staged');
const policy = mediaPolicy(config, staging);
const log = createLogger({ level: 'silent' });
const ALICE = '+15557654321';

// Everything that would be opened for a real send. State folders of the channels are theirs to use.
const stateDirs: string[] = [staging];
const allowedForAccess = (p: string) =>
  inside(realOf(p), root) || stateDirs.some((d) => inside(realOf(p), realOf(d)));
/** Calls that read a file or its metadata; realpath only resolves names, which is how the check works. */
const ACCESS = new Set(['open', 'stat', 'lstat', 'readFile', 'copyFile', 'opendir', 'readdir', 'access']);
const ACCESS_SYNC = new Set(['createReadStream', 'openSync', 'readFileSync', 'statSync', 'copyFileSync']);

let listener: Server;
let port = 0;
const knocks: string[] = [];
let fake: FakeTwilio;
let twilio: Awaited<ReturnType<typeof startChannel>>;
let wa: Awaited<ReturnType<typeof waSetup>>;
let waSock: Awaited<ReturnType<Awaited<ReturnType<typeof waSetup>>['start']>>;

beforeAll(async () => {
  listener = createServer((s) => {
    knocks.push(`${s.remoteAddress}`);
    s.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  port = (listener.address() as { port: number }).port;
  fake = await startFakeTwilio();
  twilio = await startChannel(
    twilioConfig({ apiBaseUrl: fake.url, mediaBaseUrl: 'https://relay.example/media' }),
    (db) => createInbox(db).handler,
  );
  stateDirs.push(twilio.paths.home);
  wa = await waSetup({ config: { whatsapp: { allowFrom: [ALICE] } } });
  stateDirs.push(wa.dir);
  waSock = await wa.start();
});

afterAll(async () => {
  await twilio.stop();
  await fake.close();
  await new Promise((r) => listener.close(r));
  rmSync(wa.dir, { recursive: true, force: true });
});

// ---- generators ----

const segment = fc.constantFrom(
  '..',
  '.',
  '',
  'a.png',
  'Q3 chart.png',
  'sub',
  'b.txt',
  'out',
  'outside',
  'secret.txt',
  'leak.png',
  'passwd.png',
  'fifo.png',
  'fifo',
  'c1',
  'c2',
  'in1',
  'loop1',
  'etc',
  'passwd',
  'work',
  '%2e%2e',
  '%2F',
  '..%2f',
  '%2e%2e%2fsecret.txt',
  '.ssh',
  'id_rsa',
);
const pathRef = fc
  .tuple(
    fc.constantFrom(
      '',
      './',
      '/',
      `${root}/`,
      `${base}/`,
      `${outside}/`,
      '~/',
      '~',
      '~root/',
      '/etc/',
      '../',
    ),
    fc.array(segment, { minLength: 1, maxLength: 5, size: 'xsmall' }),
  )
  .map(([lead, segs]) => lead + segs.join('/'));
const schemeRef = fc
  .tuple(
    fc.constantFrom(
      'file://',
      'file:',
      'FILE://localhost',
      'data:text/plain;base64,',
      'data:',
      'javascript:',
    ),
    pathRef,
  )
  .map(([s, p]) => s + p);
/** 127.0.0.1 (where the listener is) and other non-public hosts, in the spellings URL parsers accept. */
const host = fc.constantFrom(
  '127.0.0.1',
  '127.1',
  '2130706433',
  '0x7f000001',
  '0x7f.0.0.1',
  '0177.0.0.1',
  '017700000001',
  '%31%32%37.0.0.1',
  '0.0.0.0',
  '0',
  '[::1]',
  '[::]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:127.0.0.1]',
  '[64:ff9b::127.0.0.1]',
  '[fe80::1]',
  '[fd00::1]',
  'localhost',
  'LOCALHOST.',
  'api.localhost',
  'printer.local',
  '169.254.169.254',
  '10.0.0.1',
  '192.168.1.1',
  '172.16.0.1',
  '100.64.0.1',
  'rebind.test',
  'loop6.test',
  'mapped.test',
  'meta.test',
  'mixed.test',
  'nowhere.test',
);
const forbiddenUrl = fc
  .tuple(
    fc.constantFrom('http', 'https', 'HTTP', 'hTTps'),
    host,
    fc.boolean(),
    fc.constantFrom('/', '/x.png', '/latest/meta-data/'),
  )
  .map(([s, h, withPort, p]) => `${s}://${h}${withPort ? `:${port}` : ''}${p}`);
const publicUrl = fc.constantFrom('https://public.test/chart.png', 'https://93.184.216.34/x.pdf');
const noise = fc.oneof(
  fc.constantFrom('x'.repeat(10_240), `{"blob":"${'y'.repeat(10_240)}"}`, '%2e%2e/%2e%2e/secret', ''),
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
);
/** References that should be attached, so the property also covers the reading path. */
const goodRef = fc.constantFrom(
  './a.png',
  'a.png',
  `${root}/a.png`,
  'sub/../a.png',
  'in1',
  'Q3 chart.png',
  'sub/b.txt',
  '%2e%2e',
);
/** Short names of the traps laid above, each reached by a link inside the root. */
const trapRef = fc
  .tuple(
    fc.constantFrom('', './', `${root}/`, 'sub/../'),
    fc.constantFrom(
      'leak.png',
      'c1',
      'c2',
      'out/secret.txt',
      'out/fifo',
      'passwd.png',
      'fifo.png',
      'loop1',
      'out/../outside/secret.txt',
    ),
  )
  .map(([lead, name]) => lead + name);
const ref = fc.oneof(pathRef, schemeRef, forbiddenUrl, publicUrl, noise, goodRef, trapRef);
/** How the agent wrote the line: case, leading space, quotes or backticks round the reference. */
const mediaLine = fc
  .tuple(fc.constantFrom('MEDIA:', 'media:', 'Media: ', '  MEDIA: '), ref, fc.constantFrom('', '"', "'", '`'))
  .map(([tag, r, q]) => `${tag}${q}${r}${q}`);
const block = fc.oneof(
  mediaLine,
  mediaLine.map((l) => `\`\`\`\n${l}\n\`\`\``),
  mediaLine.map((l) => `~~~md\n${l}\n~~~`),
  mediaLine.map((l) => `Use \`${l}\` to attach`),
  fc.constantFrom('**Media:** 1 photo attached', 'Here you go.', 'MEDIA:', '```', ''),
);
const replyText = fc.array(block, { minLength: 1, maxLength: 6 }).map((b) => b.join('\n'));

/** What the claude CLI would print for a reply with this text. */
function claudeOutput(text: string) {
  const lines = [
    JSON.stringify({
      type: 'assistant',
      session_id: 's',
      message: { id: 'm1', content: [{ type: 'text', text }] },
    }),
    JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: text, session_id: 's' }),
  ];
  return { stdoutLines: lines, stderr: '', exitCode: 0, signal: null, truncated: false };
}

async function deliver(text: string): Promise<OutboundItem[][]> {
  const parsed = getSpec('claude').parse(claudeOutput(text));
  const r = { ...parsed, durationMs: 1 } as Parameters<typeof composeRunReply>[1];
  const out: OutboundItem[][] = [];
  for (const channel of ['whatsapp', 'twilio'] as const) {
    const items = await composeRunReply(
      policy,
      r,
      { agent: 'claude', contextReset: false, channel, cwd: root, limit: channel === 'twilio' ? 1600 : 4000 },
      log,
    );
    const ch = channel === 'whatsapp' ? wa.channel : twilio.channel;
    for (const item of items) {
      const sent = await ch.send(ALICE, item);
      expect(sent).toHaveProperty('ok');
    }
    out.push(items);
  }
  return out;
}

function checkRecords(connects: { host: string; port: number }[]): void {
  for (const c of fsCalls()) {
    if (ACCESS.has(c.fn) || ACCESS_SYNC.has(c.fn)) {
      if (!allowedForAccess(c.path)) throw new Error(`${c.fn}(${c.path}) is outside the allowed root`);
    }
  }
  const fakePort = Number(new URL(fake.url).port);
  for (const c of connects) {
    if (!(c.host === '127.0.0.1' && c.port === fakePort)) {
      throw new Error(`connection to ${c.host}:${c.port}`);
    }
  }
  expect(knocks).toEqual([]);
}

describe('hostile MEDIA: lines', () => {
  it('open no file outside the root, connect nowhere but the fake REST server, never throw', async () => {
    const net = recordConnections();
    const seen = { files: 0, urls: 0, refusals: 0, connects: 0 };
    try {
      await fc.assert(
        fc.asyncProperty(replyText, async (text) => {
          fsCalls().length = 0;
          net.connects.length = 0;
          const sentBefore = waSock.sent.length;
          const createdBefore = fake.created.length;
          const itemsByChannel = await deliver(text);
          checkRecords(net.connects);
          seen.connects += net.connects.length;
          // Approved files are staged copies of files inside the root; URLs approved are public.
          for (const items of itemsByChannel) {
            for (const item of items) {
              if (item.type === 'file') expect(inside(realOf(item.path), staging)).toBe(true);
              if (item.type === 'file') expect(readFileSync(item.path, 'utf8')).not.toBe('SECRET');
              if (item.type === 'file') seen.files++;
              if (item.type === 'url') seen.urls++;
              if (item.type === 'text' && item.text.includes('Attachment not sent')) seen.refusals++;
              if (item.type === 'url')
                expect(['public.test', '93.184.216.34']).toContain(new URL(item.url).hostname);
            }
          }
          // Baileys gets bytes, never a URL or path to read.
          for (const s of waSock.sent.slice(sentBefore)) {
            for (const v of Object.values(s.content as Record<string, unknown>)) {
              expect(Boolean(v && typeof v === 'object' && 'url' in (v as object))).toBe(false);
            }
            expect(JSON.stringify(s.content)).not.toContain('SECRET');
          }
          // Twilio is only ever given our own staged URLs or the public ones.
          for (const m of fake.created.slice(createdBefore)) {
            for (const u of m.mediaUrl) {
              expect(
                u.startsWith('https://relay.example/media/') ||
                  ['public.test', '93.184.216.34'].includes(new URL(u).hostname),
              ).toBe(true);
            }
          }
        }),
        { numRuns: 150 },
      );
    } finally {
      net.restore();
    }
    // The generators reach every outcome: attached files, public links, refusals, real REST calls.
    for (const [k, n] of Object.entries(seen)) expect(n, k).toBeGreaterThan(0);
    // IP literals never reach the resolver; only names do.
    for (const name of dns.asked) expect(name).toMatch(/^[a-z0-9.]+\.test$/);
  });

  it('a symlink out of the root is refused on its real path, with a notice instead of the file', async () => {
    for (const link of ['leak.png', 'c1', 'out/secret.txt', 'passwd.png', 'fifo.png', 'loop1']) {
      fsCalls().length = 0;
      const [waItems, twItems] = await deliver(`Report:\nMEDIA:./${link}`);
      for (const items of [waItems!, twItems!]) {
        expect(items.filter((i) => i.type === 'file')).toEqual([]);
        const text = items.map((i) => (i.type === 'text' ? i.text : '')).join('\n');
        expect(text).toContain('Attachment not sent');
        expect(text).not.toMatch(/ENOENT|ELOOP|ENAMETOOLONG/);
      }
      checkRecords([]);
      // The instrument saw the check happen (a spy that records nothing proves nothing).
      expect(fsCalls().some((c) => c.fn === 'realpath')).toBe(true);
    }
  });

  it('a valid reference on its own line is attached once; in code or prose it is not', async () => {
    fsCalls().length = 0;
    const before = waSock.sent.length;
    const text = [
      'Here is the chart.',
      'MEDIA:./Q3 chart.png',
      'MEDIA: `./Q3 chart.png`',
      '```',
      'MEDIA:./a.png',
      '```',
      '**Media:** 1 photo attached',
      `MEDIA:{"blob":"${'z'.repeat(10_240)}"}`,
    ].join('\n');
    const [waItems] = await deliver(text);
    const files = waItems!.filter((i) => i.type === 'file');
    expect(files.map((i) => (i.type === 'file' ? i.fileName : ''))).toEqual(['Q3 chart.png']);
    expect(files.map((i) => (i.type === 'file' ? readFileSync(i.path, 'utf8') : ''))).toEqual(['chart']);
    const images = waSock.sent.slice(before).filter((s) => 'image' in (s.content as object));
    expect(images).toHaveLength(1);
    // The approved file was read through the instrumented module.
    expect(fsCalls().some((c) => c.fn === 'open' && c.path === join(root, 'Q3 chart.png'))).toBe(true);
    const notice = waItems!.map((i) => (i.type === 'text' ? i.text : '')).join('\n');
    expect(notice).not.toMatch(/ENOENT|ENAMETOOLONG|no such file|not sent/i);
    // The JSON blob is plainly no path (D32): it stays in the reply as the agent wrote it, and the
    // file system is never asked about it.
    expect(notice.replace(/\s+/g, '')).toContain(`MEDIA:{"blob":"${'z'.repeat(10_240)}"}`);
    expect(fsCalls().some((c) => String(c.path).includes('z'.repeat(50)))).toBe(false);
  });

  // The property samples hosts; this names one address in every forbidden range (by literal and, where
  // a name can point there, through the resolver), so dropping any one range fails here every run.
  it('a URL into any forbidden range is refused on both channels, and nothing connects', async () => {
    const hosts = [
      '0.1.2.3',
      '10.1.2.3',
      '100.64.1.2',
      '127.0.0.2',
      '169.254.169.254',
      'meta.test',
      '172.16.5.4',
      '172.31.255.254',
      '192.0.0.8',
      '192.0.2.1',
      '192.88.99.1',
      '192.168.1.1',
      '198.18.0.1',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.251',
      '240.0.0.1',
      '255.255.255.255',
      '[::1]',
      '[::]',
      '[fe80::1]',
      '[fd12:3456::1]',
      '[fc00::1]',
      '[ff02::1]',
      '[::ffff:169.254.169.254]',
      '[::ffff:10.0.0.1]',
      '[64:ff9b::a9fe:a9fe]',
      '[2001::1]',
      '[2001:db8::1]',
      '[2002:a9fe:a9fe::1]',
      'loop6.test',
      'mapped.test',
      'mixed.test',
    ];
    const net = recordConnections();
    try {
      for (const h of hosts) {
        const [waItems, twItems] = await deliver(`Here:\nMEDIA:https://${h}/latest/meta-data/x.png`);
        for (const items of [waItems!, twItems!]) {
          expect(
            items.filter((i) => i.type !== 'text'),
            h,
          ).toEqual([]);
          expect(items.map((i) => (i.type === 'text' ? i.text : '')).join('\n'), h).toContain(
            'Attachment not sent',
          );
        }
      }
      checkRecords(net.connects);
      // A public address in the same shape is attached: the refusals above are about the range.
      const [waItems] = await deliver('MEDIA:https://93.184.216.34/x.pdf');
      expect(waItems!.some((i) => i.type === 'url')).toBe(true);
    } finally {
      net.restore();
    }
  });

  it('a forbidden URL is refused for every spelling of the listener address, and nothing connects', async () => {
    const net = recordConnections();
    try {
      const forms = [
        '127.0.0.1',
        '127.1',
        '2130706433',
        '0x7f000001',
        '0177.0.0.1',
        '[::ffff:127.0.0.1]',
        'localhost',
        'rebind.test',
        '0.0.0.0',
      ];
      const text = forms.map((h) => `MEDIA:http://${h}:${port}/x.png`).join('\n');
      const [waItems, twItems] = await deliver(text);
      for (const items of [waItems!, twItems!]) expect(items.filter((i) => i.type !== 'text')).toEqual([]);
      checkRecords(net.connects);
    } finally {
      net.restore();
    }
  });
});
