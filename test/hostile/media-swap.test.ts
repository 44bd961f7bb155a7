// Path-component swaps between the media check and the send. The check approves
// `run/a/b/f.png`; then any component (a folder or the file) is swapped for a symlink out of the
// root, to /etc, to a secret file, replaced by a hard link to a secret, renamed away or put back, in
// any order. Whatever any channel then
// sends (Twilio's hosted media, the bytes WhatsApp uploads, what the console names) must be bytes
// that were inside the allowed root when they were checked: the staged copy, never what the path
// names later. A second property swaps before the check as well, and a racing child process swaps
// folders while checks run, so the check itself (not only the gap after it) is covered.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderItem } from '../../src/channels/console/console.js';
import { configSchema } from '../../src/config/schema.js';
import type { OutboundItem } from '../../src/core/types.js';
import { createLogger } from '../../src/log.js';
import { mediaPolicy } from '../../src/queue/adapters.js';
import { composeItems } from '../../src/queue/compose.js';
import { type FakeTwilio, startFakeTwilio } from '../channels/twilio/helpers/fake-twilio.js';
import { createInbox, startChannel, twilioConfig } from '../channels/twilio/helpers/harness.js';
import { setup as waSetup } from '../channels/whatsapp/harness.js';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'aw-swap-')));
const root = join(base, 'work');
const outside = join(base, 'outside');
const stash = join(base, 'stash');
const staging = join(base, 'state', 'media', 'staged');
for (const d of [root, outside, stash]) mkdirSync(d, { recursive: true });

const config = configSchema.parse({ media: { allowedRoots: [root] } });
const policy = mediaPolicy(config, staging);
const log = createLogger({ level: 'silent' });
const ALICE = '+15557654321';

/** The path checked is `<run>/a/b/f.png`; these are its swappable components, top down. */
const COMPONENTS = ['a', 'b', 'f.png'] as const;
type Swap = {
  at: number;
  to: 'outside' | 'etc' | 'secret' | 'hardlink' | 'away' | 'back' | 'inside-other';
};

let runs = 0;
interface Layout {
  run: string;
  ref: string;
  inside: string;
}
/**
 * A fresh tree per run, so runs cannot disturb each other: the real one under the root, a mirror
 * of it outside holding secrets at every level a swapped folder could lead to.
 */
function layout(): Layout {
  const run = `r${++runs}`;
  const inside = `INSIDE-${run}`;
  mkdirSync(join(root, run, 'a', 'b'), { recursive: true });
  writeFileSync(join(root, run, 'a', 'b', 'f.png'), inside);
  writeFileSync(join(root, run, 'other.png'), `${inside}-other`);
  mkdirSync(join(outside, run, 'a', 'b'), { recursive: true });
  mkdirSync(join(outside, run, 'b'), { recursive: true });
  for (const p of [['a', 'b', 'f.png'], ['b', 'f.png'], ['f.png'], ['secret']])
    writeFileSync(join(outside, run, ...p), `SECRET-${run}`);
  mkdirSync(join(stash, run));
  return { run, ref: `${run}/a/b/f.png`, inside };
}

/** Replaces component `at` of the checked path (its original is kept aside to put back). */
function swap(l: Layout, s: Swap): void {
  const parts = COMPONENTS.slice(0, s.at + 1);
  const here = join(root, l.run, ...parts);
  const kept = join(stash, l.run, String(s.at));
  // The parent may itself be swapped away or out: then this swap has nothing to act on.
  let st: ReturnType<typeof lstatSync> | undefined;
  try {
    st = lstatSync(here);
  } catch {
    st = undefined;
  }
  const parent = join(root, l.run, ...COMPONENTS.slice(0, s.at));
  if (!isDirInside(parent, join(root, l.run))) return;
  // A folder cannot be hard-linked.
  if (s.to === 'hardlink' && s.at !== COMPONENTS.length - 1) return;
  if (st?.isSymbolicLink()) unlinkSync(here);
  else if (st && !existsSync(kept)) renameSync(here, kept);
  else if (st) rmSync(here, { recursive: true });
  switch (s.to) {
    case 'outside':
      // A folder becomes a link to a folder outside where the rest of the path exists too.
      symlinkSync(join(outside, l.run, ...(s.at === 0 ? ['a'] : s.at === 1 ? ['b'] : ['f.png'])), here);
      break;
    case 'etc':
      symlinkSync(s.at === 2 ? '/etc/passwd' : '/etc', here);
      break;
    case 'secret':
      symlinkSync(join(outside, l.run, 'secret'), here);
      break;
    case 'hardlink':
      // The same file as the secret under a name inside the root: its real path is inside.
      linkSync(join(outside, l.run, 'secret'), here);
      break;
    case 'inside-other':
      symlinkSync(join(root, l.run, 'other.png'), here);
      break;
    case 'away':
      break;
    case 'back':
      if (existsSync(kept)) renameSync(kept, here);
      break;
  }
}

function isDirInside(dir: string, top: string): boolean {
  try {
    return statSync(dir).isDirectory() && `${realpathSync(dir)}/`.startsWith(`${top}/`);
  } catch {
    return false;
  }
}

const swapArb = fc.record({
  at: fc.integer({ min: 0, max: COMPONENTS.length - 1 }),
  to: fc.constantFrom<Swap['to']>('outside', 'etc', 'secret', 'hardlink', 'away', 'back', 'inside-other'),
});

let fake: FakeTwilio;
let twilio: Awaited<ReturnType<typeof startChannel>>;
let wa: Awaited<ReturnType<typeof waSetup>>;
let waSock: Awaited<ReturnType<Awaited<ReturnType<typeof waSetup>>['start']>>;
let racer: ChildProcess | undefined;

beforeAll(async () => {
  fake = await startFakeTwilio();
  twilio = await startChannel(
    twilioConfig({ apiBaseUrl: fake.url, mediaBaseUrl: 'https://relay.example/media' }),
    (db) => createInbox(db).handler,
  );
  wa = await waSetup({ config: { whatsapp: { allowFrom: [ALICE] } } });
  waSock = await wa.start();
});

afterAll(async () => {
  racer?.kill('SIGKILL');
  await twilio.stop();
  await fake.close();
  rmSync(wa.dir, { recursive: true, force: true });
  rmSync(base, { recursive: true, force: true });
});

async function check(ref: string): Promise<OutboundItem[]> {
  return composeItems(policy, { text: '', media: [ref], channel: 'whatsapp', cwd: root, limit: 4000 }, log);
}

/** Every byte string any channel handed out since `mark`: Twilio's hosted copies, WhatsApp uploads. */
function sentPayloads(mark: { wa: number; hosted: Set<string> }): string[] {
  const out: string[] = [];
  for (const s of waSock.sent.slice(mark.wa)) {
    for (const v of Object.values(s.content as Record<string, unknown>))
      if (Buffer.isBuffer(v)) out.push(v.toString());
  }
  const hostDir = join(twilio.paths.home, 'media', 'outbound');
  for (const name of existsSync(hostDir) ? readdirSync(hostDir) : []) {
    if (!mark.hosted.has(name)) out.push(readFileSync(join(hostDir, name), 'utf8'));
  }
  return out;
}

function markNow() {
  const hostDir = join(twilio.paths.home, 'media', 'outbound');
  return { wa: waSock.sent.length, hosted: new Set(existsSync(hostDir) ? readdirSync(hostDir) : []) };
}

async function sendAll(items: OutboundItem[]): Promise<string[]> {
  const consoleLines: string[] = [];
  for (const item of items) {
    if (item.type !== 'file') continue;
    await wa.channel.send(ALICE, item);
    await twilio.channel.send(ALICE, item);
    consoleLines.push(renderItem(item));
  }
  return consoleLines;
}

/** Staged copies, by content: what the relay would send for the items approved in this run. */
function stagedContents(): string[] {
  return existsSync(staging) ? readdirSync(staging).map((n) => readFileSync(join(staging, n), 'utf8')) : [];
}

describe('path-component swaps between the media check and the send', () => {
  // The issue's own cases, by name: workspace/d/passwd approved, then `d` becomes a link to /etc;
  // and the file itself swapped for a link to /etc/passwd or a hard link to a secret.
  it.each([
    [
      'the folder, for a link to /etc',
      (dir: string) => {
        renameSync(join(dir, 'd'), join(dir, 'd-was'));
        symlinkSync('/etc', join(dir, 'd'));
      },
    ],
    [
      'the file, for a link to /etc/passwd',
      (dir: string) => {
        renameSync(join(dir, 'd', 'passwd'), join(dir, 'passwd-was'));
        symlinkSync('/etc/passwd', join(dir, 'd', 'passwd'));
      },
    ],
    [
      'the file, for a hard link to a secret',
      (dir: string) => {
        renameSync(join(dir, 'd', 'passwd'), join(dir, 'passwd-was'));
        writeFileSync(join(outside, `${basename(dir)}-secret`), 'SECRET');
        linkSync(join(outside, `${basename(dir)}-secret`), join(dir, 'd', 'passwd'));
      },
    ],
  ])('swapping %s after the check sends the checked bytes on every channel', async (_n, swapIt) => {
    const dir = join(root, `named-${++runs}`);
    mkdirSync(join(dir, 'd'), { recursive: true });
    writeFileSync(join(dir, 'd', 'passwd'), 'INSIDE');
    rmSync(staging, { recursive: true, force: true });
    const items = await check(`${basename(dir)}/d/passwd`);
    expect(items.filter((i) => i.type === 'file')).toHaveLength(1);
    swapIt(dir);
    const mark = markNow();
    const consoleLines = await sendAll(items);
    expect(sentPayloads(mark)).toEqual(['INSIDE', 'INSIDE']);
    expect(stagedContents()).toEqual(['INSIDE']);
    expect(consoleLines.join('\n')).toContain(staging);
  });

  it('nothing outside the root is staged or sent, whatever is swapped after the check', async () => {
    const seen = { approved: 0, sent: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(swapArb, { minLength: 1, maxLength: 6 }), async (swaps) => {
        const l = layout();
        rmSync(staging, { recursive: true, force: true });
        const items = await check(l.ref);
        const files = items.filter((i) => i.type === 'file');
        expect(files).toHaveLength(1);
        seen.approved++;
        for (const s of swaps) swap(l, s);
        const mark = markNow();
        const consoleLines = await sendAll(items);
        const payloads = sentPayloads(mark);
        seen.sent += payloads.length;
        // Both channels sent the file: the bytes are the ones checked, not what the path names now.
        expect(payloads).toHaveLength(2);
        for (const p of payloads) expect(p).toBe(l.inside);
        for (const line of consoleLines) expect(line).not.toContain(join(root, l.run));
        for (const c of stagedContents()) expect(c).toBe(l.inside);
      }),
      { numRuns: 120 },
    );
    expect(seen.approved).toBeGreaterThan(0);
    expect(seen.sent).toBeGreaterThan(0);
  });

  it('swaps before the check as well: what is approved is inside, and what is sent is what was approved', async () => {
    const outcomes = { approved: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(swapArb, { maxLength: 4 }),
        fc.array(swapArb, { maxLength: 4 }),
        async (before, after) => {
          const l = layout();
          rmSync(staging, { recursive: true, force: true });
          for (const s of before) swap(l, s);
          const items = await check(l.ref);
          const approved = items.some((i) => i.type === 'file');
          if (approved) outcomes.approved++;
          else outcomes.refused++;
          for (const s of after) swap(l, s);
          const mark = markNow();
          await sendAll(items);
          for (const p of sentPayloads(mark)) expect(p).toMatch(new RegExp(`^${l.inside}(-other)?$`));
          for (const c of stagedContents()) expect(c).toMatch(new RegExp(`^${l.inside}(-other)?$`));
        },
      ),
      { numRuns: 120 },
    );
    // The generator reaches both outcomes: swaps that leave the path inside, and ones that lead out.
    expect(outcomes.approved).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });

  it('a folder swapped back and forth by another process while checks run never stages a secret', async () => {
    const l = layout();
    rmSync(staging, { recursive: true, force: true });
    // The racer flips `a` between the real folder and a link to the outside mirror, as fast as it can.
    const script = `
      const fs = require('node:fs');
      const [here, kept, link] = process.argv.slice(1);
      for (;;) {
        try { fs.renameSync(here, kept); fs.symlinkSync(link, here); } catch {}
        try { fs.unlinkSync(here); fs.renameSync(kept, here); } catch {}
      }`;
    racer = spawn(
      process.execPath,
      ['-e', script, join(root, l.run, 'a'), join(stash, l.run, 'a'), join(outside, l.run, 'a')],
      { stdio: 'ignore' },
    );
    const counts = { approved: 0, refused: 0 };
    try {
      // Started once the racer has flipped the folder at least once (a slow machine may take a while).
      while (!lstatSync(join(root, l.run, 'a'), { throwIfNoEntry: false })?.isSymbolicLink())
        await new Promise((r) => setTimeout(r, 5));
      // Until both outcomes were seen (at least 300 rounds): the race then really crossed the checks.
      for (let i = 0; i < 5000 && (i < 300 || counts.refused === 0 || counts.approved === 0); i++) {
        const mark = markNow();
        const items = await check(l.ref);
        if (items.some((it) => it.type === 'file')) counts.approved++;
        else counts.refused++;
        await sendAll(items);
        for (const p of sentPayloads(mark)) expect(p).toBe(l.inside);
      }
    } finally {
      racer.kill('SIGKILL');
      racer = undefined;
    }
    for (const c of stagedContents()) expect(c).toMatch(new RegExp(`^${l.inside}(-other)?$`));
    // The race was real: some checks found the folder swapped out, some found it in place.
    expect(counts.refused).toBeGreaterThan(0);
    expect(counts.approved).toBeGreaterThan(0);
  });
});
