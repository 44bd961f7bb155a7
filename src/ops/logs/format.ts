// Turns one pino JSON line into "time LEVEL subsystem message key=value…" for `agentwire logs`.
// Lines that are not JSON (a crash trace, a foreign tool) are shown as they are.

const LEVELS: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Binding names a child logger may use for its subsystem, in order of preference. */
const SUBSYSTEM_KEYS = ['subsystem', 'sub', 'module', 'mod', 'component', 'channel', 'name'] as const;
const HIDDEN = new Set(['time', 'level', 'msg', 'pid', 'hostname', 'v']);

export function formatLogLine(line: string): string {
  let rec: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return line;
    rec = parsed as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof rec.time === 'number' ? new Date(rec.time).toISOString() : String(rec.time ?? '-');
  const level =
    typeof rec.level === 'number' ? (LEVELS[rec.level] ?? String(rec.level)) : String(rec.level ?? '?');
  const subKey = SUBSYSTEM_KEYS.find((k) => typeof rec[k] === 'string');
  const sub = subKey ? (rec[subKey] as string) : undefined;
  const extras = Object.entries(rec)
    .filter(([k]) => !HIDDEN.has(k) && k !== subKey)
    .map(([k, v]) => `${k}=${value(v)}`);
  const msg = typeof rec.msg === 'string' ? rec.msg : '';
  return [time, level.padEnd(5), (sub ?? '-').padEnd(10), msg, ...extras].join(' ').trimEnd();
}

/** The numeric pino level of a line, or undefined when it is not a pino line. */
export function levelOf(line: string): number | undefined {
  const m = /"level":(\d+)/.exec(line);
  return m ? Number(m[1]) : undefined;
}

function value(v: unknown): string {
  if (typeof v === 'string') return /\s/.test(v) || v === '' ? JSON.stringify(v) : v;
  if (v && typeof v === 'object' && 'message' in v) {
    const e = v as { type?: unknown; message?: unknown };
    return JSON.stringify(`${typeof e.type === 'string' ? `${e.type}: ` : ''}${String(e.message)}`);
  }
  return JSON.stringify(v);
}
