import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import JSON5 from 'json5';
import type { z } from 'zod';
import { agentKindProblems } from './agent-kinds.js';
import { knownKeys, missingComma, nearestKey } from './hints.js';
import { locate, locateNearest } from './locate.js';
import { pgEnvUrl } from './pg-env.js';
import { agentOverrides, type Config, configSchema } from './schema.js';
import { STORE_URL_ENV, storeProblems } from './schema-store.js';

export interface ConfigProblem {
  file: string;
  line?: number;
  col?: number;
  /** Dotted key path, e.g. `queue.maxConcurrentRuns`; empty for the whole file. */
  path: string;
  message: string;
}

/** A string value built from `${VAR}` references: printed as written, never as its value. */
export interface EnvReference {
  path: (string | number)[];
  /** The string as written in the file, e.g. `--key=${API_KEY}`. */
  template: string;
}

export type LoadResult =
  /** `file` is absent when no config file exists and the defaults are in use. */
  | { ok: true; config: Config; file?: string; envRefs: EnvReference[] }
  | { ok: false; problems: ConfigProblem[] };

export function formatProblem(p: ConfigProblem): string {
  const where = p.line ? `${p.file}:${p.line}:${p.col ?? 1}` : p.file;
  return `${where} ${p.path || '(root)'}: ${p.message}`;
}

/**
 * Checks of a parsed config that need knowledge above the config layer (the channel plug-ins decide
 * which chat keys exist): passed in by the caller, reported like the schema's own problems.
 */
export type ConfigCheck = (
  config: Config,
  env: NodeJS.ProcessEnv,
) => readonly { path: (string | number)[]; message: string }[];

/**
 * Reads and validates the config file; a missing file is the all-defaults config unless it was named.
 * `agentKinds` is the agent registry's list (AGENT_KINDS in agents/registry.ts, a layer above this
 * one): every kind the config names must be one of them.
 */
export function loadConfig(
  file: string,
  explicit: boolean,
  env: NodeJS.ProcessEnv,
  agentKinds: readonly string[],
  check?: ConfigCheck,
): LoadResult {
  if (!existsSync(file)) {
    if (explicit) return { ok: false, problems: [{ file, path: '', message: 'file not found' }] };
    const defaults = parseConfigValue({}, file, '', env, agentKinds, check);
    return defaults.ok ? { ...defaults, file: undefined } : defaults;
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { ok: false, problems: [{ file, path: '', message: `cannot read: ${(err as Error).message}` }] };
  }
  return parseConfigText(text, file, env, agentKinds, check);
}

/** `agentKinds` as for loadConfig; without it (tests of the file format) any kind-shaped name passes. */
export function parseConfigText(
  text: string,
  file: string,
  env: NodeJS.ProcessEnv,
  agentKinds?: readonly string[],
  check?: ConfigCheck,
): LoadResult {
  let raw: unknown;
  try {
    raw = JSON5.parse(text);
  } catch (err) {
    const e = err as { lineNumber?: number; columnNumber?: number; message: string };
    const message = e.message.replace(/^JSON5: /, '').replace(/ at \d+:\d+$/, '');
    // JSON5 stops at the token after a missing comma; point at where the comma belongs instead.
    const comma =
      e.lineNumber && e.columnNumber && message.startsWith('invalid character')
        ? missingComma(text, e.lineNumber, e.columnNumber)
        : undefined;
    if (comma)
      return {
        ok: false,
        problems: [
          {
            file,
            ...comma,
            path: '',
            message: `missing comma after the previous value (JSON5 stopped at ${e.lineNumber}:${e.columnNumber}: ${message})`,
          },
        ],
      };
    return { ok: false, problems: [{ file, line: e.lineNumber, col: e.columnNumber, path: '', message }] };
  }
  return parseConfigValue(raw, file, text, env, agentKinds, check);
}

/** Deeper than any real config; past it the walkers below would run out of stack instead of answering. */
export const MAX_CONFIG_DEPTH = 32;

function parseConfigValue(
  raw: unknown,
  file: string,
  text: string,
  env: NodeJS.ProcessEnv,
  agentKinds: readonly string[] | undefined,
  check?: ConfigCheck,
): LoadResult {
  const deep = tooDeep(raw);
  if (deep) {
    const path = deep.join('.');
    const message = `nested more than ${MAX_CONFIG_DEPTH} levels deep`;
    return { ok: false, problems: [{ file, path, message, ...locate(text, deep) }] };
  }
  const problems: ConfigProblem[] = [];
  const envRefs: EnvReference[] = [];
  const substituted = substituteEnv(
    raw,
    [],
    env,
    (path, message) => problems.push({ file, path: path.join('.'), message, ...locateNearest(text, path) }),
    (path, template) => envRefs.push({ path, template }),
  );
  const parsed = configSchema.safeParse(substituted);
  if (!parsed.success) problems.push(...zodProblems(parsed.error, file, text));
  else if (agentKinds) {
    for (const p of agentKindProblems(parsed.data as Config, agentKinds))
      problems.push({ file, path: p.path.join('.'), message: p.message, ...locateNearest(text, p.path) });
  }
  if (problems.length > 0) return { ok: false, problems };
  const config = finish(parsed.data as Config, env);
  for (const p of storeProblems(config.store))
    problems.push({ file, path: p.path.join('.'), message: p.message, ...locateNearest(text, p.path) });
  for (const p of check?.(config, env) ?? [])
    problems.push({ file, path: p.path.join('.'), message: p.message, ...locateNearest(text, p.path) });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, config, file, envRefs };
}

/** The first path (in document order) that goes past MAX_CONFIG_DEPTH, found without recursion. */
function tooDeep(raw: unknown): (string | number)[] | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: raw, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (!value || typeof value !== 'object') continue;
    if (path.length >= MAX_CONFIG_DEPTH) return path;
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, v] = entries[i]!;
      stack.push({ value: v, path: [...path, k] });
    }
  }
  return undefined;
}

/** Environment defaults for credentials and `~` in paths, applied once so nothing downstream reads env. */
function finish(config: Config, env: NodeJS.ProcessEnv): Config {
  const t = config.twilio;
  t.accountSid ??= env.TWILIO_ACCOUNT_SID || undefined;
  t.authToken ??= env.TWILIO_AUTH_TOKEN || undefined;
  t.apiKey ??= env.TWILIO_API_KEY || undefined;
  t.apiSecret ??= env.TWILIO_API_SECRET || undefined;
  // Then PostgreSQL's own PG* variables (config/pg-env.ts), as psql and node-postgres read them.
  if (config.store.engine === 'postgres') config.store.url ??= env[STORE_URL_ENV] || pgEnvUrl(env)?.url;
  const home = env.HOME || homedir();
  const expand = (p: string) => (p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : p);
  for (const a of [config.agent, ...agentOverrides(config.agents)]) {
    if (a?.cwd) a.cwd = expand(a.cwd);
    if (a?.workspace && a.workspace !== 'shared' && a.workspace !== 'per-chat')
      a.workspace = expand(a.workspace);
  }
  if (config.media.allowedRoots) config.media.allowedRoots = config.media.allowedRoots.map(expand);
  return config;
}

/** `"${VAR}"` anywhere inside a string is replaced by the environment variable; a missing one is an error. */
function substituteEnv(
  value: unknown,
  path: (string | number)[],
  env: NodeJS.ProcessEnv,
  report: (path: (string | number)[], message: string) => void,
  referenced: (path: (string | number)[], template: string) => void,
): unknown {
  if (typeof value === 'string') {
    let used = false;
    const out = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      used = true;
      const v = env[name];
      if (v === undefined) {
        report(path, `environment variable ${name} is not set`);
        return '';
      }
      return v;
    });
    if (used) referenced(path, value);
    return out;
  }
  const walk = (v: unknown, key: string | number) =>
    substituteEnv(v, [...path, key], env, report, referenced);
  if (Array.isArray(value)) return value.map((v, i) => walk(v, i));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
  }
  return value;
}

function zodProblems(error: z.ZodError, file: string, text: string): ConfigProblem[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    // For an unknown key zod reports the parent object; name the key itself.
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const full = keys.length === 1 ? [...path, keys[0] as string] : path;
    const missing = issue.code === 'invalid_type' && / received undefined$/.test(issue.message);
    const message =
      issue.code === 'unrecognized_keys'
        ? unknownKeys(keys, knownKeys(configSchema, path))
        : missing
          ? `required key missing (expected ${issue.expected})`
          : issue.message;
    return { file, path: full.join('.'), message, ...locateNearest(text, full) };
  });
}

/** `unknown key; did you mean maxConcurrentRuns?`, or the list of several with a guess for each. */
function unknownKeys(keys: readonly string[], known: readonly string[]): string {
  const guess = (k: string) => {
    const near = nearestKey(k, known);
    return near ? `did you mean ${near}?` : undefined;
  };
  if (keys.length === 1) {
    const g = guess(keys[0] as string);
    return g ? `unknown key; ${g}` : 'unknown key';
  }
  return `unknown keys ${keys.map((k) => (guess(k) ? `${k} (${guess(k)})` : k)).join(', ')}`;
}
