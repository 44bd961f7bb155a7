// The parsers read a line only when it can change something (wordsTest), and read the lines a CLI
// prints most off the line by a pattern (lineForm). Both must be exact: the same events, the same
// JSON and the same results as parsing every line.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import * as claude from '../../src/agents/claude.js';
import * as codex from '../../src/agents/codex.js';
import { type Json, jsonLine, type Reducer } from '../../src/agents/common.js';
import * as gemini from '../../src/agents/gemini.js';
import * as opencode from '../../src/agents/opencode.js';
import * as pi from '../../src/agents/pi.js';
import { getSpec } from '../../src/agents/registry.js';
import type { AgentKind, StreamEvent } from '../../src/agents/types.js';
import { linesOf, loadCaptures } from './fixtures.js';
import { escaped } from './json-text.js';

const REDUCERS: Record<AgentKind, () => Reducer> = {
  claude: claude.reducer,
  codex: codex.reducer,
  pi: pi.reducer,
  opencode: opencode.reducer,
  gemini: gemini.reducer,
};

describe('gemini deltas read off the line', () => {
  const deltas = loadCaptures()
    .filter((c) => c.kind === 'gemini')
    .flatMap((c) => linesOf(c.stdout))
    .filter((l) => jsonLine(l)?.delta === true);

  it('gives the content JSON.parse gives, for every delta in the captures', () => {
    expect(deltas.length).toBeGreaterThan(40);
    for (const l of deltas) expect(gemini.deltaContent(l)).toBe(jsonLine(l)!.content);
  });

  it('reads any content, and nothing that is not exactly such an event (property)', () => {
    const edit = fc.tuple(
      fc.nat(),
      fc.constantFrom('', ' ', '"', '\\', '\t', 'x', '}', ',"delta":true', ',"type":"x"'),
      fc.nat(3),
    );
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.constantFrom(...deltas),
        fc.array(edit, { maxLength: 2 }),
        (content, real, edits) => {
          const line = real.replace(/"content":.*,"delta"/, `"content":${JSON.stringify(content)},"delta"`);
          expect(gemini.deltaContent(line)).toBe(content);
          let mutated = line;
          for (const [at, text, drop] of edits) {
            const i = at % (mutated.length + 1);
            mutated = mutated.slice(0, i) + text + mutated.slice(i + drop);
          }
          const got = gemini.deltaContent(mutated);
          if (got === undefined) return;
          const ev = JSON.parse(mutated) as Record<string, unknown>;
          expect(Object.keys(ev)).toEqual(['type', 'timestamp', 'role', 'content', 'delta']);
          expect([ev.type, ev.role, ev.delta, ev.content]).toEqual(['message', 'assistant', true, got]);
        },
      ),
    );
  });

  it('leaves a long line to JSON.parse instead of overflowing the pattern', () => {
    const long = deltas[0]!.replace(/"content":"[^"]*"/, `"content":"${'x'.repeat(1e7)}"`);
    expect(gemini.deltaContent(long)).toBeUndefined();
  });
});

describe('reading only the lines that matter', () => {
  const captures = loadCaptures();
  // Real lines, and the same lines with a word \u-escaped, a second "type" key, a tail cut off.
  const variants = (l: string): string[] => {
    const word = /"([a-z_.]{3,20})"/.exec(l);
    return [
      l,
      word
        ? l.replace(
            word[0],
            escaped(word[1]!, () => true),
          )
        : l,
      l.endsWith('}') ? `${l.slice(0, -1)},"type":"end"}` : l,
      l.endsWith('}') ? `${l.slice(0, -1)},"type":"user"}` : l,
      l.slice(0, Math.floor(l.length / 2)),
    ];
  };

  it.each(Object.keys(REDUCERS) as AgentKind[])(
    '%s: the line path gives what stepping over every line JSON gives (property)',
    (kind) => {
      const runs = captures.filter((c) => c.kind === kind).map((c) => linesOf(c.stdout));
      const keep = getSpec(kind).keepLine;
      // Slices of real runs spliced together (a step cut off, then another one starting), each line
      // as it was or in one of its variants.
      const slice = fc.record({ run: fc.nat(), from: fc.nat(), len: fc.nat(12), variant: fc.nat(9) });
      fc.assert(
        fc.property(fc.array(slice, { maxLength: 8 }), (slices) => {
          const lines = slices.flatMap((s) => {
            const run = runs[s.run % runs.length]!;
            return run
              .slice(s.from % run.length, (s.from % run.length) + s.len)
              .map((l, i) => variants(l)[(s.variant + i) % 10 < 5 ? 0 : (s.variant + i) % 5]!);
          });
          const byLine = REDUCERS[kind]!();
          const byJson = REDUCERS[kind]!();
          for (const l of lines) {
            const ev = jsonLine(l);
            const want: StreamEvent[] = ev && (!keep || keep(l)) ? byJson.event(ev) : [];
            expect(byLine.line(l), l).toEqual(want);
          }
        }),
        { numRuns: 500 },
      );
    },
  );
});

describe('lines in a known form, read as JSON', () => {
  const FORMS = { codex: codex.formJson, opencode: opencode.formJson } as const;
  const linesOfKind = (kind: string, { runs = false } = {}) =>
    loadCaptures()
      // The ratio is about the output of runs that reached a model: a machine with no credentials
      // prints retry lines the forms are not for.
      .filter((c) => c.kind === kind && !(runs && c.name.endsWith('no-credentials')))
      .flatMap((c) => linesOf(c.stdout));

  /** The same JSON written anew: other strings (some escaped) and numbers, in the same places. */
  const rewritten = (v: unknown, str: () => string, num: () => string): string => {
    if (typeof v === 'string') return str();
    if (typeof v === 'number') return num();
    if (Array.isArray(v)) return `[${v.map((x) => rewritten(x, str, num)).join(',')}]`;
    if (v && typeof v === 'object')
      return `{${Object.entries(v)
        .map(
          ([k, x]) =>
            `${JSON.stringify(k)}:${k === 'type' || k === 'reason' ? JSON.stringify(x) : rewritten(x, str, num)}`,
        )
        .join(',')}}`;
    return JSON.stringify(v);
  };

  it.each(Object.keys(FORMS) as (keyof typeof FORMS)[])(
    '%s: nearly every captured line is in a form, and reads as JSON.parse reads it',
    (kind) => {
      const lines = linesOfKind(kind, { runs: true }).filter((l) => jsonLine(l));
      const inForm = lines.filter((l) => FORMS[kind](l));
      expect(inForm.length / lines.length).toBeGreaterThan(0.6);
      for (const l of linesOfKind(kind).filter((x) => FORMS[kind](x))) {
        expect(FORMS[kind](l)).toStrictEqual(JSON.parse(l));
        expect(JSON.stringify(FORMS[kind](l))).toBe(l);
      }
    },
  );

  it.each(Object.keys(FORMS) as (keyof typeof FORMS)[])(
    '%s: any values, any escapes, any edit: a form reads what JSON.parse reads, or nothing (property)',
    (kind) => {
      const read = FORMS[kind];
      const inForm = linesOfKind(kind).filter((l) => read(l));
      const num = fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
        fc.constantFrom('-0', '1e400', '2.50E-3', '0'),
      );
      const edit = fc.tuple(
        fc.nat(),
        fc.constantFrom('', ' ', '"', '\\', ',', '}', '1', 'e', '\t', ',"type":"x"'),
        fc.nat(3),
      );
      fc.assert(
        fc.property(
          fc.constantFrom(...inForm),
          fc.infiniteStream(fc.tuple(fc.string({ unit: 'binary' }), fc.func(fc.boolean()))),
          fc.infiniteStream(num),
          fc.array(edit, { maxLength: 2 }),
          (line, strs, nums, edits) => {
            const [sIt, nIt] = [strs[Symbol.iterator](), nums[Symbol.iterator]()];
            const text = rewritten(
              JSON.parse(line),
              () => escaped(...(sIt.next().value as [string, (i: number) => boolean])),
              () => nIt.next().value as string,
            );
            // Equal, keys in the same order too.
            expect(read(text), text).toStrictEqual(JSON.parse(text));
            expect(JSON.stringify(read(text))).toBe(JSON.stringify(JSON.parse(text)));
            let edited = text;
            for (const [at, piece, drop] of edits) {
              const i = at % (edited.length + 1);
              edited = edited.slice(0, i) + piece + edited.slice(i + drop);
            }
            const got = read(edited);
            if (got === undefined) return;
            expect(got, edited).toStrictEqual(JSON.parse(edited));
            expect(JSON.stringify(got)).toBe(JSON.stringify(JSON.parse(edited)));
          },
        ),
        { numRuns: 300 },
      );
    },
  );
});

describe('claude: the session id from the end', () => {
  const run = (lines: string[]) =>
    claude.claudeSpec.parse({ stdoutLines: lines, stderr: '', exitCode: 0, signal: null, truncated: false });
  const tool = loadCaptures().find((c) => c.kind === 'claude' && c.name === 'tool')!;
  const lines = linesOf(tool.stdout);
  const system = lines.find((l) => jsonLine(l)?.type === 'system')!;

  it('is the last one printed, also on a line parse otherwise passes by', () => {
    const later = system.replace(/"session_id":"[^"]*"/, '"session_id":"later-one"');
    expect(run([...lines, later]).sessionId).toBe('later-one');
    expect(run([...lines, later, 'not json', '{"x":1}']).sessionId).toBe('later-one');
    expect(run([...lines, later, lines[lines.length - 1]!]).sessionId).toBe(
      jsonLine(lines[lines.length - 1]!)!.session_id,
    );
    expect(run([later, ...lines.map((l) => l.replace(/"session_id":"[^"]*",?/, ''))]).sessionId).toBe(
      'later-one',
    );
  });

  it('parses the same as reading every line, on real runs with noise (property)', () => {
    const reference = (ls: string[]): unknown => {
      let id: unknown;
      for (const l of ls) {
        const ev: Json | undefined = jsonLine(l);
        if (ev && typeof ev.session_id === 'string') id = ev.session_id;
      }
      return id;
    };
    const pool = loadCaptures()
      .filter((c) => c.kind === 'claude')
      .flatMap((c) => linesOf(c.stdout))
      .flatMap((l) => [
        l,
        l.replace(/"session_id":"([^"]*)"/, '"session_id":"x$1"'),
        l.replace(/"session_id":"[^"]*",?/, ''),
        'noise',
      ]);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pool), { maxLength: 30 }), (ls) => {
        expect(run(ls).sessionId).toBe(reference(ls));
      }),
      { numRuns: 500 },
    );
  });
});

describe('what the stream parses of a real run', () => {
  // Events each stream still hands to JSON.parse; everything else it reads off the line or passes by.
  const PARSED: Record<AgentKind, string[]> = {
    claude: ['assistant', 'user', 'result'],
    codex: ['item.started'],
    pi: ['message_end'],
    opencode: ['tool_use'],
    gemini: ['tool_use'],
  };

  it.each(Object.keys(PARSED) as AgentKind[])('%s: only the events listed here', (kind) => {
    const runs = loadCaptures().filter((c) => c.kind === kind && c.exit_code === 0 && !c.timed_out);
    const spy = vi.spyOn(JSON, 'parse');
    try {
      for (const c of runs) {
        const next = getSpec(kind).messageStream();
        for (const l of linesOf(c.stdout)) next(l);
      }
      const types = spy.mock.calls
        .map(([text]) => String(text))
        .filter((t) => t.startsWith('{'))
        .map((t) => String((JSON.parse(t) as Json).type));
      expect(new Set(types)).toEqual(new Set(PARSED[kind]));
    } finally {
      spy.mockRestore();
    }
  });
});
