#!/usr/bin/env node
// The npm here writes package-lock.json without Biome's binaries for other platforms (their
// manifests are skipped), and `npm ci` then refuses the lock as out of sync. This adds the missing
// optional entries back (they are never installed on a machine they do not fit). Run it after any
// `npm install` that rewrote the lock: `node scripts/complete-lock.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const biome = lock.packages['node_modules/@biomejs/biome'];
let added = 0;
for (const [name, version] of Object.entries(biome?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  if (lock.packages[key]) continue;
  const [, os, cpu, libc] = /cli-(\w+)-(\w+)(?:-(musl))?$/.exec(name) ?? [];
  if (!os || !cpu) throw new Error(`unexpected Biome platform package ${name}`);
  lock.packages[key] = {
    version,
    cpu: [cpu],
    dev: true,
    ...(libc && { libc: [libc] }),
    license: 'MIT OR Apache-2.0',
    optional: true,
    os: [os],
    engines: { node: '>=14.21.3' },
  };
  added++;
}
const sorted = Object.keys(lock.packages).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1));
lock.packages = Object.fromEntries(sorted.map((k) => [k, lock.packages[k]]));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} Biome platform entr${added === 1 ? 'y' : 'ies'} added`);
