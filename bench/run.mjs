#!/usr/bin/env node
// Runs every bench/*.bench.mjs (each default-exports an async function returning result rows) and
// prints one table. A row: {metric, value, unit, target?, pass?}. `npm run bench` builds first;
// benches import the built code from dist/. Pass names to run only some: `node bench/run.mjs relay`.
// `--burst` also runs the real-CLI burst (long; see bench/burst.bench.mjs).
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
// `--burst` (`npm run bench -- --burst`) adds the long real-CLI burst rows; naming `burst` does too.
const args = process.argv.slice(2);
const only = args.filter((a) => !a.startsWith('--'));
if (args.includes('--burst') || only.some((o) => 'burst.bench.mjs'.includes(o)))
  process.env.BENCH_BURST = '1';
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

const rows = [];
let failed = false;
for (const file of files) {
  const name = file.replace(/\.bench\.mjs$/, '');
  process.stderr.write(`running ${name}…\n`);
  try {
    const mod = await import(pathToFileURL(join(here, file)).href);
    for (const r of await mod.default()) rows.push({ bench: name, ...r });
  } catch (err) {
    failed = true;
    rows.push({ bench: name, metric: 'error', value: String(err?.message ?? err), unit: '' });
  }
}

const fmt = (v) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : String(v));
const table = [
  ['bench', 'metric', 'value', 'target', 'ok'],
  ...rows.map((r) => [
    r.bench,
    r.metric,
    `${fmt(r.value)}${r.unit ? ` ${r.unit}` : ''}`,
    r.target ?? '',
    r.pass === undefined ? '' : r.pass ? 'yes' : 'NO',
  ]),
];
const widths = table[0].map((_, i) => Math.max(...table.map((row) => String(row[i]).length)));
const line = (row) =>
  row
    .map((c, i) => String(c).padEnd(widths[i]))
    .join('  ')
    .trimEnd();
process.stdout.write(`${line(table[0])}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
for (const row of table.slice(1)) process.stdout.write(`${line(row)}\n`);
if (failed) process.exitCode = 1;
