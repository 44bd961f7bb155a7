// Layer and cycle rules for src/, run by `npm run lint` (docs/architecture.md draws the map).
//
// A module may import its own layer or a lower one, never a higher one, and no import cycles, type-only
// imports included: a type import still couples the lower module to the upper one's shape, and the
// cycles issue 15 names are all closed through one.
//
// The code had upward imports and cycles when these rules were added; issue 15 removed them all, and
// the exception lists below are empty. An exception, should one ever be needed, is one line there.

/** Lowest first. A folder (or top-level file) of src/ belongs to exactly one layer. */
const LAYERS = [
  // types, pure policy, config validation, logging: depend on nothing of ours above them
  // (agents/types.ts is the agent contract's types, which core, store and the rest share)
  {
    name: 'base',
    paths: ['core', 'config', 'log.ts', 'log-rotate.ts', 'version.ts', 'own-files.ts', 'agents/types.ts'],
  },
  // durable state: the contract (src/store/*.ts, contract/) and its engines (sqlite/)
  { name: 'store', paths: ['store'] },
  // how a turn reaches an agent CLI, and the media policy its replies pass through
  { name: 'agents', paths: ['agents', 'runner', 'drivers', 'media'] },
  // WhatsApp, Twilio, console
  { name: 'channels', paths: ['channels'] },
  // what runs turns: the chats' run slots, the heartbeat/schedule jobs, events from outside, and the agent's tools
  { name: 'queue', paths: ['queue', 'heartbeat', 'tools', 'events'] },
  // what watches and steers a running relay: control socket, status/doctor/alerts, web console
  { name: 'ops', paths: ['control', 'ops', 'web'] },
  // composition roots and commands
  { name: 'app', paths: ['cli', 'relay.ts', 'relay-queue.ts', 'relay-tools.ts', 'send-once.ts'] },
];

/**
 * Upward imports allowed as exceptions: [from, to], one per line with its reason. Issue 15 removed
 * every one the code had (docs/architecture.md); keep it that way.
 */
const KNOWN_UPWARD = [];

/** Import cycles allowed as exceptions: [module, module]. None since issue 15. */
const KNOWN_CYCLES = [];

// The store seam: src/store/ is the contract (port types, row types, pure helpers, openStore) and
// each engine lives in a folder of its own (src/store/sqlite/, later src/store/postgres/). Only the
// SQLite engine imports node:sqlite; nothing outside src/store/ imports an engine; the contract loads
// one only through openStore's dynamic import (store/open.ts), so it imports no engine statically.

/** A store engine's folder: any folder of src/store/ but the contract's own. */
const ENGINE = '^src/store/(?!contract/)[^/]+/';

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A regex for src/<path>: a folder's files, or the one top-level file. */
// A folder's regex leaves out the files another layer names on their own (agents/types.ts).
const FILES = LAYERS.flatMap((l) => l.paths.filter((p) => p.endsWith('.ts')));
const under = (p) => {
  if (p.endsWith('.ts')) return `^src/${escapeRe(p)}$`;
  const claimed = FILES.filter((f) => f.startsWith(`${p}/`)).map((f) => escapeRe(f.slice(p.length + 1)));
  return `^src/${escapeRe(p)}/${claimed.length ? `(?!(${claimed.join('|')})$)` : ''}`;
};
const anyOf = (paths) => paths.map(under);
const exactly = (file) => `^${escapeRe(file)}$`;

const layerRules = [];
for (const [i, layer] of LAYERS.entries()) {
  const above = LAYERS.slice(i + 1).flatMap((l) => anyOf(l.paths));
  if (above.length === 0) continue;
  const own = anyOf(layer.paths);
  const inLayer = (file) => own.some((re) => new RegExp(re).test(file));
  const known = KNOWN_UPWARD.filter(([from]) => inLayer(from));
  const excepted = [...new Set(known.map(([from]) => from))];
  const comment = `${layer.name} may import only its own layer or lower ones (docs/architecture.md)`;
  layerRules.push({
    name: `layer-${layer.name}`,
    comment,
    severity: 'error',
    from: { path: own, pathNot: excepted.map(exactly) },
    to: { path: above },
  });
  // A file with a known upward import may keep exactly those, and no new one.
  for (const from of excepted) {
    layerRules.push({
      name: `layer-${layer.name}`,
      comment: `${comment}; known exceptions for this file are listed in KNOWN_UPWARD (issue 15)`,
      severity: 'error',
      from: { path: exactly(from) },
      to: { path: above, pathNot: known.filter(([f]) => f === from).map(([, to]) => exactly(to)) },
    });
  }
}

const cycleFiles = [...new Set(KNOWN_CYCLES.flat())];
const cyclePartners = (file) =>
  KNOWN_CYCLES.filter((pair) => pair.includes(file)).map(([a, b]) => (a === file ? b : a));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import cycles, type-only imports included (docs/architecture.md)',
      severity: 'error',
      from: { pathNot: cycleFiles.map(exactly) },
      to: { circular: true },
    },
    // A module in a known cycle may keep that cycle, and no new one.
    ...cycleFiles.map((file) => ({
      name: 'no-circular',
      comment: 'no import cycles; known exceptions are listed in KNOWN_CYCLES (issue 15)',
      severity: 'error',
      from: { path: exactly(file) },
      to: { circular: true, pathNot: cyclePartners(file).map(exactly) },
    })),
    {
      name: 'layer-unassigned',
      comment: 'every folder and top-level file of src/ belongs to a layer: add it to LAYERS',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.flatMap((l) => anyOf(l.paths)) },
      to: {},
    },
    {
      name: 'layer-unassigned',
      comment: 'every folder and top-level file of src/ belongs to a layer: add it to LAYERS',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: LAYERS.flatMap((l) => anyOf(l.paths)) },
    },
    {
      name: 'sqlite-only-in-sqlite-engine',
      comment:
        'only src/store/sqlite/ imports node:sqlite; everything else takes the store ports (openStore in src/store/open.ts)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/sqlite/' },
      to: { path: '^(node:)?sqlite$' },
    },
    {
      name: 'engine-only-in-store',
      comment:
        'nothing outside src/store/ imports a store engine (src/store/<engine>/), types included: the contract is src/store/*.ts and src/store/contract/',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/store/' },
      to: { path: ENGINE },
    },
    {
      name: 'contract-imports-no-engine',
      comment:
        'the store contract (src/store/*.ts, src/store/contract/) imports no engine, types included; openStore loads one by dynamic import',
      severity: 'error',
      from: { path: '^src/store/(contract/)?[^/]+$', pathNot: '^src/store/open\\.ts$' },
      to: { path: ENGINE },
    },
    {
      name: 'contract-imports-no-engine',
      comment: 'openStore (src/store/open.ts) loads an engine only by dynamic import, when it is chosen',
      severity: 'error',
      from: { path: '^src/store/open\\.ts$' },
      to: { path: ENGINE, dependencyTypesNot: ['dynamic-import'] },
    },
    {
      name: 'launcher-stays-small',
      comment:
        "the launcher process (src/runner/launcher/launcher-process.ts) imports only node's own modules and its protocol's types: it is forked as a separate process, must stay at an empty node's size, and runs from the sources by type stripping, where only type imports are erased",
      severity: 'error',
      from: { path: '^src/runner/launcher/(launcher-process|protocol)\\.ts$' },
      to: { pathNot: '^src/runner/launcher/protocol\\.ts$', dependencyTypesNot: ['core'] },
    },
    ...layerRules,
  ],
  options: {
    // Type-only imports count (see the top of this file).
    tsPreCompilationDeps: true,
    // The tsconfig makes `./x.js` specifiers resolve to `./x.ts` (NodeNext).
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    // Generated protocol types, not code of ours to layer.
    exclude: { path: '^src/drivers/codex-protocol' },
  },
};
