// A real relay in this process (store, queue, control socket, lock, the web console service) whose
// only fake is at the far edge: WhatsApp's servers, replaced by the fake Baileys socket.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createWhatsAppChannel } from '../../src/channels/whatsapp/index.js';
import type { Context } from '../../src/cli/context.js';
import { resolvePaths } from '../../src/config/paths.js';
import { configSchema } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { type ChannelFactory, type RunningRelay, startRelay } from '../../src/relay.js';
import { webConsoleService } from '../../src/web/service.js';
import { type FakeSocket, fakeSockets } from '../channels/whatsapp/fake-socket.js';
import { tempDir } from '../helpers/tmp.js';

export interface TestRelay {
  home: string;
  ctx: Context;
  relay: RunningRelay;
  /** What the console printed at start. */
  printed: string[];
  consoleUrl: () => string;
  sock: () => FakeSocket;
  stop: () => Promise<void>;
}

export async function startTestRelay(config: Record<string, unknown> = {}): Promise<TestRelay> {
  const top = tempDir('aw-relay-');
  const home = join(top, 'state');
  mkdirSync(home, { mode: 0o700 });
  const env = { AGENTWIRE_HOME: home, PATH: process.env.PATH ?? '', HOME: home };
  const ctx: Context = {
    paths: resolvePaths(env),
    config: configSchema.parse({ console: { port: 0 }, ...config }),
    log: createLogger({ level: 'warn', destination: { write: () => true } as never }),
    env,
  };
  const { makeSocket, sockets } = fakeSockets();
  const whatsapp: ChannelFactory = {
    name: 'whatsapp',
    enabled: (c) => c.whatsapp.enabled,
    create: (deps) =>
      createWhatsAppChannel({
        config: deps.config,
        paths: deps.paths,
        store: deps.store.whatsapp,
        log: deps.log,
        makeSocket,
      }),
  };
  const printed: string[] = [];
  const relay = await startRelay(ctx, {
    channels: [whatsapp],
    services: [webConsoleService({ print: (l) => void printed.push(l), interactive: true, pollMs: 300 })],
  });
  return {
    home,
    ctx,
    relay,
    printed,
    consoleUrl: () => {
      const m = /Web console: (\S+)/.exec(printed.join(''));
      if (!m?.[1]) throw new Error(`the console printed no URL: ${printed.join('')}`);
      return m[1];
    },
    sock: () => {
      const s = sockets.at(-1);
      if (!s) throw new Error('no WhatsApp socket was made');
      return s;
    },
    // Also removes the state folder: a relay started in a beforeAll outlives any one test.
    stop: async () => {
      await relay.stop(0);
      rmSync(top, { recursive: true, force: true });
    },
  };
}
