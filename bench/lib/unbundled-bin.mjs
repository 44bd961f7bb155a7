// The built program loaded module by module, as `dist/cli/bin.js` did before the build bundled it
// (scripts/bundle-cli.mjs): the startup bench's baseline for the bundle. The same steps as the bin
// (the compile cache where the bin would keep one, then the program), without the Node check.
import { enableOwnCompileCache } from '../../dist/cli/own-compile-cache.js';

enableOwnCompileCache(process.env);
const { runMain } = await import('../../dist/cli/main.js');
await runMain();
