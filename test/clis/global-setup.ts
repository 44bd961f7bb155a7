// Once per `npm run test:clis`: check that this run is inside netns.sh's loopback-only namespace
// and that the pinned CLIs are installed (run.sh installed them before entering it), then start
// one fake model server (fake-model/) for every test, in this process.
import { existsSync, readFileSync } from 'node:fs';
import { homedir, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type FakeModel, startFakeModel } from './fake-model/server.js';
import { PINS } from './install/pins.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    fakeModel: string;
    clisDir: string;
  }
}

let server: FakeModel | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The real CLIs must not reach the internet (a real model, telemetry, updates): refuse to run
  // them anywhere but in the namespace, and check that it really holds nothing but loopback.
  const interfaces = Object.keys(networkInterfaces());
  if (process.env.AGENTWIRE_CLIS_NETNS !== '1' || interfaces.some((i) => i !== 'lo'))
    throw new Error(
      `test:clis: not inside a loopback-only network namespace (interfaces: ${interfaces.join(', ')}); run \`npm run test:clis\``,
    );
  const clisDir = process.env.AGENTWIRE_CLIS_DIR ?? join(homedir(), '.cache', 'agentwire-clis');
  for (const { cli, pkg, version } of PINS) {
    const manifest = join(clisDir, cli, 'node_modules', pkg, 'package.json');
    const have = existsSync(manifest)
      ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
      : 'none';
    if (have !== version || !existsSync(join(clisDir, 'bin', cli)))
      throw new Error(
        `test:clis: ${pkg}@${version} is not installed in ${clisDir} (found ${have}); run \`npm run test:clis\``,
      );
  }
  server = await startFakeModel();
  project.provide('fakeModel', server.url);
  project.provide('clisDir', clisDir);
  return async () => {
    await server?.close();
  };
}
