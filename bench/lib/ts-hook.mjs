// `node --import ./bench/lib/ts-hook.mjs`: lets a bench load the real-CLI suite's TypeScript helpers
// (the fake model server, cliEnv) as they are. Node 24 strips the types itself; this hook only maps
// their `./x.js` imports to the `./x.ts` file beside them, as tsc and vitest do.
import { register } from 'node:module';

const hook = `
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
export async function resolve(spec, ctx, next) {
  if (spec.startsWith('.') && spec.endsWith('.js') && ctx.parentURL?.endsWith('.ts')) {
    const u = new URL(spec, ctx.parentURL);
    if (!existsSync(fileURLToPath(u))) return next(u.href.slice(0, -3) + '.ts', ctx);
  }
  return next(spec, ctx);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
