// Arbitrary JSON5-ish text and arbitrary objects to the config loader. Properties: it never throws; it
// answers either a config or problems that name the file, and a line:col that points at the key when
// the key was written; a config it accepts holds every value that was written, unchanged (a value is
// taken as written or refused, never replaced by a default — so never a looser setting than asked).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import JSON5 from 'json5';
import { describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/registry.js';
import { type ConfigProblem, loadConfig, parseConfigText } from '../../src/config/load.js';
import { tempDir } from '../helpers/tmp.js';

const FILE = '/etc/agentwire/test.json5';
const HOME = '/home/tester';
const env = { HOME };

const TOP = [
  'agent',
  'agents',
  'queue',
  'sessions',
  'commands',
  'media',
  'whatsapp',
  'twilio',
  'heartbeat',
  'schedules',
  'console',
  'log',
];
const INNER = [
  'kind',
  'command',
  'cwd',
  'timeoutSeconds',
  'env',
  'model',
  'thinking',
  'allowFrom',
  'groupAllowFrom',
  'groups',
  'enabled',
  'webhook',
  'insecureSkipSignature',
  'publicUrl',
  'allowUrls',
  'allowedRoots',
  'maxInboundMb',
  'maxConcurrentRuns',
  'port',
  'host',
  'path',
  'level',
  'claude',
  'codex',
  'prefix',
  'authToken',
  'every',
];
const key = (names: string[]) =>
  fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...names) }, fc.string({ maxLength: 8 }));
const scalar = fc.oneof(
  fc.boolean(),
  fc.integer({ min: -2, max: 70_000 }),
  fc.double({ noNaN: false }),
  fc.constant(null),
  fc.constantFrom(
    '*',
    '+15551234567',
    'claude',
    'codex',
    '~/work',
    '~',
    '/tmp/x',
    'https://relay.example/wh',
    '0.0.0.0',
    '',
    '30m',
  ),
  fc.string({ maxLength: 12 }),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 3 }),
  object: fc.dictionary(key(INNER), tie('value'), { maxKeys: 4 }),
}));
const configObject = fc.dictionary(
  key(TOP),
  fc.oneof(value, fc.dictionary(key(INNER), value, { maxKeys: 4 })),
  {
    maxKeys: 4,
  },
);

/** The written leaves (scalars and empty arrays) with their paths. */
function leaves(v: unknown, path: (string | number)[] = []): [(string | number)[], unknown][] {
  if (Array.isArray(v)) return v.length === 0 ? [[path, v]] : v.flatMap((x, i) => leaves(x, [...path, i]));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leaves(x, [...path, k]));
  return [[path, v]];
}

function get(v: unknown, path: readonly (string | number)[]): unknown {
  let cur = v;
  for (const p of path) {
    if (!cur || typeof cur !== 'object' || !Object.hasOwn(cur, p)) return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

const isPath = (v: unknown, path: readonly (string | number)[]) => {
  if (path.length === 0) return false;
  // The parent may be written as null (`{agents: {'': null}}`): then nothing is under it.
  const parent = get(v, path.slice(0, -1));
  return parent !== null && typeof parent === 'object' && Object.hasOwn(parent, path.at(-1)!);
};

/** Paths the loader itself rewrites, documented: `~` in folder settings. */
const expands = (path: readonly (string | number)[]) =>
  (path[0] === 'agent' && path[1] === 'cwd') ||
  (path[0] === 'agents' && path[2] === 'cwd') ||
  (path[0] === 'media' && path[1] === 'allowedRoots');

/** The string a JSON5 quoted literal at the start of `s` stands for, or undefined. */
function quotedLiteral(s: string): string | undefined {
  const q = s[0];
  if (q !== '"' && q !== "'") return undefined;
  for (let i = 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === q) {
      try {
        return JSON5.parse(s.slice(0, i + 1));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function checkProblems(problems: ConfigProblem[], text: string, written: unknown): void {
  expect(problems.length).toBeGreaterThan(0);
  const lines = text.split('\n');
  for (const p of problems) {
    expect(p.file).toBe(FILE);
    expect(p.message.length).toBeGreaterThan(0);
    if (p.line !== undefined) {
      expect(p.line).toBeGreaterThanOrEqual(1);
      expect(p.col).toBeGreaterThanOrEqual(1);
    }
    const path = p.path === '' ? [] : p.path.split('.').map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    // A problem at a key that was written must point at that key in the text.
    if (path.length > 0 && isPath(written, path) && !String(path.at(-1)).includes('.')) {
      expect(p.line, `${p.path} has no line`).toBeDefined();
      const at = lines
        .slice(p.line! - 1)
        .join('\n')
        .slice(p.col! - 1);
      const last = path.at(-1)!;
      if (typeof last === 'string') {
        const bare = at.startsWith(last);
        // A quoted key may be written with escapes (`"\\QO"` is the key `QO`): read the literal.
        const quoted = quotedLiteral(at) === last;
        expect(bare || quoted, `${p.path} → ${at.slice(0, 30)}`).toBe(true);
      }
    }
  }
}

describe('hostile config files', () => {
  it('arbitrary text never throws; a syntax error names file, line and column', () => {
    const texty = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc.string({ unit: 'binary', maxLength: 60 }),
      configObject
        .map((o) => JSON5.stringify(o))
        .chain((s) =>
          fc
            .tuple(fc.nat(s.length), fc.string({ maxLength: 3 }))
            .map(([i, ins]) => s.slice(0, i) + ins + s.slice(i)),
        ),
      fc.nat(20_000).map((n) => `{a:${'['.repeat(n)}${']'.repeat(n)}}`),
      fc.nat(5_000).map((n) => `{agent:{env:${'{a:'.repeat(n)}1${'}'.repeat(n)}}}`),
    );
    fc.assert(
      fc.property(texty, (text) => {
        const r = parseConfigText(text, FILE, env);
        if (r.ok) return;
        let syntax = false;
        try {
          JSON5.parse(text);
        } catch {
          syntax = true;
        }
        if (syntax) {
          expect(r.problems).toHaveLength(1);
          expect(r.problems[0]).toMatchObject({ file: FILE, path: '' });
          expect(r.problems[0]!.line).toBeGreaterThanOrEqual(1);
          expect(r.problems[0]!.col).toBeGreaterThanOrEqual(1);
        } else {
          checkProblems(r.problems, text, JSON5.parse(text));
        }
      }),
      {
        numRuns: 400,
        // Found by CI: a quoted key written with an escape (`"\\Q"` is `Q`); and one continued on a next line.
        examples: [[`{"\\QO+'ho5":{'h8@4P]Jr':null},console:['aY/6'],media:48682}`], [`{a:1,\n'x\\\ny':2}`]],
      },
    );
  });

  it('arbitrary objects: a config holds every written value unchanged, or the problems point at keys', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        configObject,
        fc.constantFrom(0, 2, '\t'),
        fc.constantFrom('"', "'"),
        (obj, space, quote) => {
          const text = JSON5.stringify(obj, { space, quote });
          const r = parseConfigText(text, FILE, env);
          if (!r.ok) {
            refused++;
            checkProblems(r.problems, text, JSON5.parse(text));
            return;
          }
          accepted++;
          for (const [path, leaf] of leaves(JSON5.parse(text))) {
            if (path.length === 0) continue;
            const got = get(r.config, path);
            if (expands(path) && typeof leaf === 'string' && (leaf === '~' || leaf.startsWith('~/'))) {
              expect(got).toBe(leaf === '~' ? HOME : join(HOME, leaf.slice(2)));
            } else {
              expect(got, path.join('.')).toEqual(leaf);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
    expect(accepted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it('security settings: any value is taken as written or refused at its key, never defaulted', () => {
    const settings: (string | number)[][] = [
      ['whatsapp', 'allowFrom'],
      ['whatsapp', 'groupAllowFrom'],
      ['whatsapp', 'groups'],
      ['twilio', 'allowFrom'],
      ['twilio', 'webhook', 'insecureSkipSignature'],
      ['twilio', 'webhook', 'host'],
      ['media', 'allowUrls'],
      ['media', 'allowedRoots'],
      ['console', 'host'],
      ['queue', 'maxConcurrentRuns'],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...settings), value, (path, v) => {
        const obj: Record<string, unknown> = {};
        let cur = obj;
        for (const p of path.slice(0, -1)) {
          const next: Record<string, unknown> = {};
          cur[p as string] = next;
          cur = next;
        }
        cur[path.at(-1) as string] = v;
        const text = JSON5.stringify(obj, null, 2);
        const r = parseConfigText(text, FILE, env);
        const written = JSON5.parse(text);
        if (r.ok) {
          if (!expands(path)) expect(get(r.config, path)).toEqual(get(written, path));
          return;
        }
        checkProblems(r.problems, text, written);
        // The refusal names this setting (or something inside it).
        for (const p of r.problems) expect(`${p.path}.`.startsWith(`${path.join('.')}.`), p.path).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('a file on disk: the same answers through loadConfig, never a throw', () => {
    const dir = tempDir('aw-hostile-config-');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 80 }),
          configObject.map((o) => JSON5.stringify(o)),
        ),
        (text) => {
          const file = join(dir, 'agentwire.json5');
          writeFileSync(file, text);
          const r = loadConfig(file, true, env, AGENT_KINDS);
          expect(r.ok || r.problems.every((p) => p.file === file)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});
