// Keeps config.example.json5 valid and complete: every key the schema knows must appear in it.
import { readFileSync } from 'node:fs';
import JSON5 from 'json5';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfigText } from '../src/config/load.js';
import { configSchema } from '../src/config/schema.js';

/** The example's name for each shape of a catch-all whose shapes differ (in the union's order). */
const CATCH_ALL: Record<string, string[]> = { commands: ['mail', 'deploy', 'ask'] };

/** Every object key path in the schema; arrays of objects contribute `path[].key`. */
function keyPaths(schema: z.ZodType, prefix: string): string[] {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodObject) {
    const own = Object.entries(inner.shape as Record<string, z.ZodType>).flatMap(([k, v]) => {
      const p = prefix ? `${prefix}.${k}` : k;
      return [p, ...keyPaths(v, p)];
    });
    // `agents.<kind>` is a catch-all: the example shows one kind (codex) in full. `commands.<name>`
    // is one of three shapes: the example shows one command of each (the names in CATCH_ALL).
    // (A strict object's catch-all is z.never(): no keys there.)
    const any = inner.def.catchall as z.ZodType | undefined;
    if (!any || any instanceof z.ZodNever) return own;
    const shapes = any instanceof z.ZodUnion ? (any.options as z.ZodType[]) : [any];
    const names = CATCH_ALL[prefix] ?? ['codex'];
    return [
      ...own,
      ...shapes.flatMap((shape, i) => {
        const p = `${prefix}.${names[i] ?? names[0]}`;
        return [p, ...keyPaths(shape, p)];
      }),
    ];
  }
  if (inner instanceof z.ZodArray) return keyPaths(inner.element as z.ZodType, `${prefix}[]`);
  return [];
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s: z.ZodType = schema;
  for (;;) {
    if (s instanceof z.ZodDefault || s instanceof z.ZodOptional || s instanceof z.ZodNullable) {
      s = s.unwrap() as z.ZodType;
    } else if (s instanceof z.ZodPipe) {
      s = s.in as z.ZodType;
    } else return s;
  }
}

function presentPaths(value: unknown, prefix: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => presentPaths(v, `${prefix}[]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => {
      const p = prefix ? `${prefix}.${k}` : k;
      return [p, ...presentPaths(v, p)];
    });
  }
  return [];
}

const text = readFileSync(new URL('../config.example.json5', import.meta.url), 'utf8');
// Optional keys are shown commented out (`// key: value`); this is the file with all of them on.
const KEY_LINE = /^(\s*)\/\/\s?(\s*(?:[A-Za-z_]\w*:|\{|\},?)(?:\s|$).*)$/;
const full = text
  .split('\n')
  .map((line) => line.replace(KEY_LINE, '$1$2'))
  .join('\n');
const env = { TWILIO_AUTH_TOKEN: 'x'.repeat(32), TWILIO_API_SECRET: 'y'.repeat(32) };

describe('config.example.json5', () => {
  it('is valid as shipped and with every optional key switched on', () => {
    for (const [name, body] of [
      ['as shipped', text],
      ['all keys on', full],
    ]) {
      const r = parseConfigText(body as string, `config.example.json5 (${name})`, env);
      expect(r.ok ? [] : r.problems).toEqual([]);
    }
  });

  it('shows every key the schema knows, so each one is documented', () => {
    const present = new Set(presentPaths(JSON5.parse(full), ''));
    // agents.<kind> share one shape: the example shows one kind in full (and the named agents).
    const wanted = keyPaths(configSchema, '').filter((p) => !/^agents\.(?!codex|warm|list)/.test(p));
    expect(wanted.length).toBeGreaterThan(50);
    expect(wanted.filter((p) => !present.has(p))).toEqual([]);
  });

  it('has a comment line above every key outside the schedule examples', () => {
    const lines = full.split('\n');
    const original = text.split('\n');
    let inSchedules = false;
    const bare = lines.flatMap((line, i) => {
      // The list examples (schedules, named agents, routes) explain each entry, not each key.
      if (/^\s*(schedules|list|routes):/.test(line)) inSchedules = true;
      if (inSchedules && /^\s*\],?$/.test(line)) inSchedules = false;
      const m = /^\s*([A-Za-z_]\w*)\s*:/.exec(line);
      if (!m || inSchedules) return [];
      const prev = original[i - 1]?.trim() ?? '';
      const prose = prev.startsWith('//') && !KEY_LINE.test(original[i - 1] ?? '');
      return prose ? [] : [`line ${i + 1}: ${m[1]}`];
    });
    expect(bare).toEqual([]);
  });
});
