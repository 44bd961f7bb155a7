// After tsc (scripts/build.mjs): the agentwire program (dist/cli/main.js and all it imports, the
// dependencies included) bundled into dist/bundle/, which src/cli/bin.ts loads. Unbundled, every
// command resolved, read and linked about 860 modules (a relay more) before it could start: more
// than half of its CPU (docs/performance.md). A module imported on demand (a channel's, started only when enabled)
// stays in chunks of its own, loaded on demand as before. The chunks sit together in one folder,
// which src/own-files.ts knows, so that package.json and the launcher's script are found from there.
// Beside them, modules.json says which modules each chunk holds (paths from the package root):
// the tests that check a command loads no library it does not use read it.
import { rmSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { build } from 'rolldown';

const root = new URL('..', import.meta.url).pathname;
const dir = new URL('../dist/bundle/', import.meta.url).pathname;
rmSync(dir, { recursive: true, force: true });
const out = await build({
  input: { cli: new URL('../dist/cli/main.js', import.meta.url).pathname },
  platform: 'node',
  logLevel: 'warn',
  // Optional peers of Baileys (image thumbnails) and discord.js (a faster inflate): imported at run
  // time inside a try, absent here, so left as imports that fail the way they always did. And
  // twilio's SDK: 750 modules (7 MB) that it requires lazily, one REST resource at a time; a relay
  // loads about 120 of them, and bundled, the whole 7 MB was read and kept (8 MB more RSS, no less
  // CPU; docs/performance.md).
  external: ['jimp', 'sharp', 'zlib-sync', 'twilio'],
  checks: {
    // `agentwire config` imports the store on demand, other commands statically: one chunk either way.
    ineffectiveDynamicImport: false,
  },
  output: { dir, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
});
const modules = {};
for (const c of out.output)
  if (c.type === 'chunk')
    modules[c.fileName] = c.moduleIds.filter((id) => id.startsWith('/')).map((id) => relative(root, id));
writeFileSync(`${dir}modules.json`, `${JSON.stringify(modules)}\n`);
