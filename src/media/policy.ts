// Checks raw MEDIA: references before anything is sent. A file must be a regular file whose REAL
// path (after every symlink) lies inside an allowed root, within the size limit; it is approved by
// being copied, there and then, into the private staging folder (stage.ts), and the copy is what goes
// out. A URL must be http(s) to a public address, checked on every address its name resolves to.
// Everything else is refused with a reason the relay can show. What the agent printed is untrusted:
// this is the gate.
import { lookup } from 'node:dns/promises';
import { realpath, rm } from 'node:fs/promises';
import { basename, extname, isAbsolute, resolve } from 'node:path';
import type { OutboundItem } from '../core/types.js';
import { isLocalName, nonPublicReason } from './address.js';
import { extensionFor } from './inbound.js';
import { inside, stageChecked, stagedBytes } from './stage.js';

export type RefusalCode =
  | 'invalid'
  | 'scheme'
  | 'home_path'
  | 'outside_roots'
  | 'not_found'
  | 'not_a_file'
  | 'too_large'
  | 'staging_full'
  | 'stage_failed'
  | 'urls_disabled'
  | 'private_address'
  | 'unresolvable';

type FileItem = Extract<OutboundItem, { type: 'file' }>;

export type MediaDecision =
  | {
      type: 'approved';
      ref: string;
      item: Extract<OutboundItem, { type: 'file' | 'url' }>;
      /** For a file: where the original really was when its bytes were copied. */
      source?: string;
    }
  | { type: 'refused'; ref: string; code: RefusalCode; reason: string };

export interface MediaPolicy {
  /** Folders files may come from (`media.allowedRoots`, default: the agent's working folder). */
  allowedRoots: readonly string[];
  /** Relative references are resolved against this folder (the agent's working folder). */
  baseDir: string;
  maxBytes: number;
  allowUrls: boolean;
  /** Private folder approved files are copied into; the item's `path` names the copy. */
  stagingDir: string;
  /** Most bytes the staging folder may hold (default: 2 GiB, or twice `maxBytes` if that is more). */
  stagingCapBytes?: number;
  /** DNS lookup, injectable for tests: every address the host resolves to. */
  resolveHost?: (host: string) => Promise<string[]>;
}

const defaultResolve = async (host: string): Promise<string[]> =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * One check of a reply's references: staged copies by the identity (device:inode) of their original,
 * and the room left in the staging folder. Copies wait there until their reply is sent, so an agent
 * that attaches the limit again and again while the channel is down must not fill the disk.
 */
interface Batch {
  seen: Map<string, FileItem>;
  room: number;
}

export async function checkMedia(refs: readonly string[], policy: MediaPolicy): Promise<MediaDecision[]> {
  const roots = await realRoots(policy.allowedRoots);
  const batch = await newBatch(policy, refs);
  const out: MediaDecision[] = [];
  for (const ref of refs) out.push(await decide(ref, policy, roots, batch));
  return out;
}

export async function checkReference(ref: string, policy: MediaPolicy): Promise<MediaDecision> {
  return decide(ref, policy, await realRoots(policy.allowedRoots), await newBatch(policy, [ref]));
}

async function newBatch(policy: MediaPolicy, refs: readonly string[]): Promise<Batch> {
  const cap = policy.stagingCapBytes ?? Math.max(2 * 1024 ** 3, 2 * policy.maxBytes);
  // Only a reply that may attach files pays for looking at the folder.
  const maybeFiles = refs.some((r) => !/^https?:/i.test(r));
  return { seen: new Map(), room: maybeFiles ? cap - (await stagedBytes(policy.stagingDir)) : cap };
}

async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const r of roots) {
    try {
      out.push(await realpath(resolve(r)));
    } catch {
      // A root that does not exist allows nothing.
    }
  }
  return out;
}

async function decide(
  ref: string,
  policy: MediaPolicy,
  roots: string[],
  batch: Batch,
): Promise<MediaDecision> {
  const refuse = (code: RefusalCode, reason: string): MediaDecision => ({
    type: 'refused',
    ref,
    code,
    reason,
  });
  if (ref === '' || /[\0-\x1f\x7f]/.test(ref))
    return refuse('invalid', 'empty or contains control characters');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(ref)?.[1]?.toLowerCase();
  if (scheme === 'http' || scheme === 'https') return decideUrl(ref, policy, refuse);
  if (scheme !== undefined)
    return refuse('scheme', `${scheme}: references are not allowed, only files and http(s) URLs`);
  if (ref.startsWith('~'))
    return refuse('home_path', 'home-relative paths are not allowed; use a path in the workspace');
  return decideFile(ref, policy, roots, batch, refuse);
}

async function decideFile(
  ref: string,
  policy: MediaPolicy,
  roots: string[],
  batch: Batch,
  refuse: (code: RefusalCode, reason: string) => MediaDecision,
): Promise<MediaDecision> {
  const named = isAbsolute(ref) ? resolve(ref) : resolve(policy.baseDir, ref);
  // A first look by name, so a link out of the roots is refused without opening what it points at.
  // It decides nothing on its own: stageChecked verifies the file it actually opened.
  let real: string;
  try {
    real = await realpath(named);
  } catch {
    return refuse('not_found', 'no such file');
  }
  if (!roots.some((root) => inside(real, root)))
    return refuse('outside_roots', 'not inside an allowed folder');
  const fileName = basename(named);
  const mimeType = mimeTypeFor(fileName, real);
  const staged = await stageChecked({
    path: real,
    roots,
    maxBytes: policy.maxBytes,
    dir: policy.stagingDir,
    extension: extensionFor(mimeType),
    room: batch.room,
  });
  if (!staged.ok) return refuse(staged.code, staged.reason);
  // Two names for one file (`./a.png`, `a.png`, a link to it) share one copy, so it is sent once.
  const earlier = batch.seen.get(staged.identity);
  if (earlier) {
    await rm(staged.path, { force: true });
    return { type: 'approved', ref, item: earlier, source: staged.source };
  }
  const item: FileItem = { type: 'file', path: staged.path, fileName, mimeType, sizeBytes: staged.sizeBytes };
  batch.seen.set(staged.identity, item);
  batch.room -= staged.sizeBytes;
  return { type: 'approved', ref, item, source: staged.source };
}

async function decideUrl(
  ref: string,
  policy: MediaPolicy,
  refuse: (code: RefusalCode, reason: string) => MediaDecision,
): Promise<MediaDecision> {
  if (!policy.allowUrls) return refuse('urls_disabled', 'URLs are turned off (media.allowUrls)');
  let url: URL;
  try {
    url = new URL(ref);
  } catch {
    return refuse('invalid', 'not a valid URL');
  }
  if (url.username || url.password) return refuse('invalid', 'URLs with credentials are not allowed');
  // The WHATWG parser already turned decimal, hex and octal IPv4 forms into dotted quads.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isLocalName(host)) return refuse('private_address', `${host} is this machine or the local network`);
  let addresses: string[];
  if (nonPublicReason(host) !== 'not an IP address') {
    addresses = [host];
  } else {
    try {
      addresses = await (policy.resolveHost ?? defaultResolve)(host.replace(/\.$/, ''));
    } catch {
      return refuse('unresolvable', `${host} does not resolve`);
    }
    if (addresses.length === 0) return refuse('unresolvable', `${host} does not resolve`);
  }
  for (const a of addresses) {
    const why = nonPublicReason(a);
    if (why) return refuse('private_address', `${host} points at a ${why} address`);
  }
  return { type: 'approved', ref, item: { type: 'url', url: url.href } };
}

const MIME: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.svg': 'image/svg+xml',
  '.heic': 'image/heic',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.wav': 'audio/wav',
  '.aac': 'audio/aac',
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.3gp': 'video/3gpp',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.html': 'text/html',
  '.vcf': 'text/vcard',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** MIME type by extension of the name the agent used, else of the real file. */
export function mimeTypeFor(name: string, real = name): string {
  return MIME[extname(name).toLowerCase()] ?? MIME[extname(real).toLowerCase()] ?? 'application/octet-stream';
}
