// A process's config fingerprint for the process registry (store/ownership.ts): several relay
// processes on one database must behave as one relay, so the settings that decide what a message
// does must be the same in each. The fingerprint is a short hash per setting (two levels deep:
// `queue.maxPending`, `access`), so a difference can be named, never shown: secrets are masked
// before hashing (redact.ts), so two processes whose only difference is a token look the same.
import { createHash } from 'node:crypto';
import { redactConfig } from './redact.js';
import type { Config } from './schema.js';

/**
 * Settings that may differ between processes, each for its reason:
 * - `log`, `console`: where this process writes its log and serves its web console;
 * - `queue.maxConcurrentRuns`, `agents.warm`: this machine's capacity (they apply per process);
 * - `store.url`: each host may reach the one database by its own address (and it is a secret);
 * - every `host` and `port`, at any depth (a channel's webhook or events server, the console): what
 *   this process listens on behind the load balancer.
 * Everything else (who may talk, routes, agents, sessions, the queue's policy, delivery, commands,
 * channels, heartbeat and schedules, tools, permissions, retention) decides what a message does, and
 * a chat may move between processes, so a difference there would answer one person two ways.
 */
export const LOCAL_SETTINGS: readonly string[] = [
  'log',
  'console',
  'queue.maxConcurrentRuns',
  'agents.warm',
  'store.url',
];

/** Keys that say where this process listens, wherever they sit: a new channel's server needs no entry. */
const LISTEN_KEYS = new Set(['host', 'port']);

const hash = (v: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify(v) ?? 'undefined')
    .digest('hex')
    .slice(0, 10);

function dropListenKeys(v: unknown): void {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return;
  for (const [k, child] of Object.entries(v)) {
    if (LISTEN_KEYS.has(k)) delete (v as Record<string, unknown>)[k];
    else dropListenKeys(child);
  }
}

function drop(root: Record<string, unknown>, path: readonly string[]): void {
  const [key, ...rest] = path;
  if (key === undefined || !Object.hasOwn(root, key)) return;
  if (rest.length === 0) delete root[key];
  else if (root[key] && typeof root[key] === 'object') drop(root[key] as Record<string, unknown>, rest);
}

const isMap = (v: unknown): v is Record<string, unknown> =>
  Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** `key=hash;…` sorted by key: a hash per top-level setting, per child for a section that is an object. */
export function configFingerprint(config: Config): string {
  const copy = redactConfig(config) as Record<string, unknown>;
  for (const p of LOCAL_SETTINGS) drop(copy, p.split('.'));
  dropListenKeys(copy);
  const parts: string[] = [];
  for (const [k, v] of Object.entries(copy)) {
    // An empty section (`heartbeat: {}`) adds nothing, so setting its first key names that key.
    if (isMap(v)) for (const [k2, v2] of Object.entries(v)) parts.push(`${k}.${k2}=${hash(v2)}`);
    else parts.push(`${k}=${hash(v)}`);
  }
  return parts.sort().join(';');
}

function parse(f: string): Map<string, string> {
  return new Map(
    f
      .split(';')
      .filter(Boolean)
      .map((p) => {
        const i = p.lastIndexOf('=');
        return [p.slice(0, i), p.slice(i + 1)] as [string, string];
      }),
  );
}

/**
 * The settings whose values differ between two fingerprints, sorted; empty when they agree. A
 * fingerprint that is not in this form (an older agentwire's single hash) differs as a whole: `*`.
 */
export function fingerprintDifference(a: string, b: string): string[] {
  if (a === b) return [];
  const wellFormed = (f: string) => f.split(';').every((p) => p.lastIndexOf('=') > 0);
  if (!wellFormed(a) || !wellFormed(b)) return ['*'];
  const [x, y] = [parse(a), parse(b)];
  const keys = new Set([...x.keys(), ...y.keys()]);
  return [...keys].filter((k) => x.get(k) !== y.get(k)).sort();
}
