// One structured logger; subsystems take children. Secrets are redacted at every level by two means:
// pino's path redaction for known fields, and a value scrubber for secret strings registered at start
// (tokens from config and env), so a secret that leaks into a free-text field is still masked.
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { type RotatingFileOptions, RotatingFileStream } from './log-rotate.js';

export type { Logger };

const secrets = new Set<string>();
// Credentials also masked in what an agent says to a chat. Narrower than `secrets`, which holds every
// agent.env value too: a path or "production" there is no secret, and masking it would garble replies.
const credentials = new Set<string>();

/** Registers a secret value; any log line containing it has it replaced by `[redacted]`. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 6) secrets.add(value);
}

/** Registers a credential (a key or token): masked in log lines and in agent replies to a chat. */
export function registerCredential(value: string | undefined): void {
  registerSecret(value);
  if (value && value.length >= 8) credentials.add(value);
}

/** Drops a credential that is no longer valid anywhere (a run's tool token, a while after the run). */
export function forgetCredential(value: string): void {
  secrets.delete(value);
  credentials.delete(value);
}

/** Agent output on its way to a chat: each registered credential becomes `[redacted]`, nothing else. */
export function maskCredentials(text: string): string {
  let out = text;
  for (const c of credentials) if (out.includes(c)) out = out.split(c).join('[redacted]');
  return out;
}

/** Environment variable names whose values are treated as secrets wherever they show up. */
export const SECRET_ENV_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|_PAT|AUTH)$/i;

/** Registers the values of every secret-looking variable of an environment, as credentials. */
export function registerSecretEnv(env: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(env)) if (SECRET_ENV_NAME.test(name)) registerCredential(value);
}

// Shapes of credentials that are masked even when nobody registered them.
const SECRET_SHAPES: readonly RegExp[] = [
  /\b(sk|rk|pk)-[A-Za-z0-9_-]{16,}/g,
  /\b(Bearer|Basic)\s+[A-Za-z0-9+/=._-]{8,}/gi,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\bxox[abpr]-[A-Za-z0-9-]{10,}/g,
];

export function scrub(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  for (const shape of SECRET_SHAPES) out = out.replace(shape, '[redacted]');
  return out;
}

// Field names that hold a secret in any subsystem's log line, masked whatever their value. The paths a
// channel adds (its own header and config field names) come from its plug-in through
// registerRedactPaths, so this file names no channel.
const BASE_REDACT_PATHS: readonly string[] = [
  'authToken',
  'apiSecret',
  'token',
  'password',
  'secret',
  'authorization',
  '*.authToken',
  '*.apiSecret',
  '*.token',
  '*.authorization',
  'headers.authorization',
];
const redactPaths = new Set<string>(BASE_REDACT_PATHS);

/**
 * Adds pino redact paths (`botToken`, `*.botToken`, `headers["x-…"]`) to every logger created after
 * this call: the relay registers the channels' paths before it creates its logger. A path pino
 * cannot compile throws here, naming it, rather than in every later createLogger.
 */
export function registerRedactPaths(paths: readonly string[]): void {
  for (const path of paths) {
    if (redactPaths.has(path)) continue;
    try {
      pino({ redact: [path] }, { write: () => undefined });
    } catch (err) {
      throw new Error(`bad log redaction path ${JSON.stringify(path)}: ${(err as Error).message}`);
    }
    redactPaths.add(path);
  }
}

export interface LoggerSetup {
  level?: string;
  /** Write here instead of stderr (tests). */
  destination?: DestinationStream;
  /** Also write JSON lines to a size-rotated file in the state folder (the relay does). */
  file?: RotatingFileOptions;
  /** With `file`: the least level still copied to stderr; `silent` for none. Default: `level`. */
  stderrLevel?: string;
  /** With `file`: turns each JSON line into what stderr shows (a person at a terminal reads it). */
  stderrFormat?: (jsonLine: string) => string;
}

/** A pino stream writing each line through `format` to stderr; pino writes whole lines. */
function formattedStderr(format: (line: string) => string): DestinationStream {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line) process.stderr.write(`${format(line)}\n`);
    },
  };
}

export function createLogger(opts: LoggerSetup = {}): Logger {
  const level = opts.level ?? process.env.AGENTWIRE_LOG_LEVEL ?? 'info';
  const options: LoggerOptions = {
    level,
    base: undefined,
    redact: { paths: [...redactPaths], censor: '[redacted]' },
    hooks: {
      // Scrub registered secret values from every argument before pino serialises them.
      logMethod(args, method) {
        const cleaned = args.map((a) =>
          typeof a === 'string' ? scrub(a) : a && typeof a === 'object' ? scrubObject(a) : a,
        );
        return method.apply(this, cleaned as Parameters<typeof method>);
      },
    },
  };
  if (opts.destination) return pino(options, opts.destination);
  if (!opts.file) return pino(options, pino.destination(2));
  const streams: pino.StreamEntry[] = [
    { level: level as pino.Level, stream: new RotatingFileStream(opts.file) },
  ];
  const stderrLevel = opts.stderrLevel ?? level;
  if (stderrLevel !== 'silent')
    streams.push({
      level: stderrLevel as pino.Level,
      stream: opts.stderrFormat
        ? formattedStderr(opts.stderrFormat)
        : pino.destination({ fd: 2, sync: true }),
    });
  // The multistream filters per stream; the logger itself must pass the least of the two levels.
  const least = pino.levels.values[stderrLevel] ?? Number.POSITIVE_INFINITY;
  if (least < (pino.levels.values[level] ?? 30)) options.level = stderrLevel;
  return pino(options, pino.multistream(streams));
}

function scrubObject(value: unknown, depth = 0): unknown {
  if (depth > 6) return value;
  if (typeof value === 'string') return scrub(value);
  if (value instanceof Error) return { type: value.name, message: scrub(value.message) };
  if (Array.isArray(value)) return value.map((v) => scrubObject(v, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubObject(v, depth + 1)]));
  }
  return value;
}

/** Masks a phone number or chat id for info-level logs: keeps the channel and the last 4 characters. */
export function maskId(id: string): string {
  const i = id.lastIndexOf(':');
  const head = i >= 0 ? id.slice(0, i + 1) : '';
  const tail = i >= 0 ? id.slice(i + 1) : id;
  return tail.length <= 4 ? `${head}…${tail}` : `${head}…${tail.slice(-4)}`;
}

/** Error text may quote a phone number or a token: scrub secrets, mask digit runs, keep it short. */
export function cleanText(text: string): string {
  const masked = scrub(text).replace(/\+?\d[\d ]{5,}\d/g, (m) => maskId(m.replace(/ /g, '')));
  return masked.length > 300 ? `${masked.slice(0, 299)}…` : masked;
}
