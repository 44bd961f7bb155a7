import { existsSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { createMediaHost } from '../../src/media/host.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { mediaHostMigration, mediaLinkStore } from '../../src/store/sqlite/media-links.js';
import { tempDir } from '../helpers/tmp.js';

function setup(ttlSeconds = 60) {
  const root = tempDir('aw-host-');
  let clock = 1_000_000;
  const db = openDb(join(root, 'db.sqlite'), [mediaHostMigration]);
  const dir = join(root, 'outbound');
  const host = createMediaHost({ links: mediaLinkStore(db), dir, ttlSeconds, now: () => clock });
  const src = join(root, 'report.pdf');
  writeFileSync(src, '%PDF-1.7');
  const advance = (ms: number) => {
    clock += ms;
  };
  return { root, db, dir, host, src, advance };
}

describe('media host', () => {
  it('stages a private copy under a random name that reveals nothing of the path', async () => {
    const { host, src, dir } = setup();
    const r = await host.stage(src, 'application/pdf');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.name).toMatch(/^[A-Za-z0-9_-]{43}\.pdf$/);
    expect(host.urlFor('https://p.example/m/', r.name)).toBe(`https://p.example/m/${r.name}`);
    expect(statSync(join(dir, r.name)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const served = await host.lookup(r.name);
    expect(served).toMatchObject({ mimeType: 'application/pdf', sizeBytes: 8 });
    expect(await text(served!.open())).toBe('%PDF-1.7');
  });

  it('two stagings of one file get different names', async () => {
    const { host, src } = setup();
    const a = await host.stage(src, 'application/pdf');
    const b = await host.stage(src, 'application/pdf');
    expect(a.ok && b.ok && a.name !== b.name).toBe(true);
  });

  it('stops serving at expiry and the sweep deletes the file', async () => {
    const { host, src, dir, advance } = setup(30);
    const r = await host.stage(src, 'application/pdf');
    if (!r.ok) throw new Error('stage failed');
    advance(29_999);
    expect(await host.lookup(r.name)).toBeDefined();
    advance(1);
    expect(await host.lookup(r.name)).toBeUndefined();
    expect(existsSync(join(dir, r.name))).toBe(true);
    expect(await host.sweep()).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.each([
    ['../report.pdf'],
    ['..%2freport.pdf'],
    [''],
    ['db.sqlite'],
    [`${'A'.repeat(43)}.pdf`],
    [`${'A'.repeat(43)}.pdf/../../db.sqlite`],
  ])('serves nothing for %j', async (name) => {
    const { host, src } = setup();
    await host.stage(src, 'application/pdf');
    expect(await host.lookup(name)).toBeUndefined();
  });

  it('reports a file that cannot be staged', async () => {
    const { host, root } = setup();
    const r = await host.stage(join(root, 'missing.png'), 'image/png');
    expect(r).toEqual({ ok: false, error: 'cannot stage file: ENOENT' });
  });

  it('refuses a path swapped for a symlink after approval instead of copying its target', async () => {
    const { host, root, dir } = setup();
    const secret = join(root, 'secret.txt');
    writeFileSync(secret, 'do not serve');
    const link = join(root, 'approved.pdf');
    symlinkSync(secret, link);
    const r = await host.stage(link, 'application/pdf');
    expect(r).toEqual({ ok: false, error: 'cannot stage file: ELOOP' });
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });

  it('keeps tokens across a reopen of the database (URLs survive a restart)', async () => {
    const { host, src, root, dir } = setup();
    const r = await host.stage(src, 'application/pdf');
    if (!r.ok) throw new Error('stage failed');
    const again = createMediaHost({
      links: mediaLinkStore(openDb(join(root, 'db.sqlite'), [mediaHostMigration])),
      dir,
      ttlSeconds: 60,
      now: () => 1_000_000,
    });
    expect(await again.lookup(r.name)).toBeDefined();
  });
});
