// The built relay as its own process with the test channel (fixtures/relay-test-channel.mjs: inbound
// messages as JSON lines on a unix socket in the home, every sent item appended to a file there):
// the harness the end-to-end tests share. `useTestRelay()` registers the hooks: the build is checked
// once, and after each test the relays it started are stopped, then the homes it made removed.
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, expect } from 'vitest';
import type { InboundOutcome } from '../../src/channels/types.js';
import { type Home, MAIN, makeHome, type Proc, RELAY_SCRIPT, spawnNode, waitFor } from './helpers.js';

/** The test channel's two files in a home; `name` gives a second relay its own. */
export function relayFiles(home: Pick<Home, 'dir'>, name?: string): { sock: string; sent: string } {
  return name
    ? { sock: join(home.dir, `${name}.sock`), sent: join(home.dir, `${name}.jsonl`) }
    : { sock: join(home.dir, 'inbound.sock'), sent: join(home.dir, 'sent.jsonl') };
}

export interface Sent {
  chatId: string;
  /** A text item's text; another item as `[type]`. */
  text: string;
}

/** What the relays on `home` sent, oldest first. */
export function sentOf(home: Pick<Home, 'dir'>, name?: string): Sent[] {
  const file = relayFiles(home, name).sent;
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { chatId: string; item: { type: string; text?: string } })
    .map((s) => ({ chatId: s.chatId, text: s.item.text ?? `[${s.item.type}]` }));
}

/** Hands one message from `chatId` (the sender too) to the relay on `home`; resolves with its outcome. */
export function deliverTo(
  home: Pick<Home, 'dir'>,
  text: string,
  messageId: string,
  chatId: string,
): Promise<InboundOutcome> {
  const msg = {
    channel: 'twilio',
    chatId,
    senderId: chatId,
    messageId,
    text,
    media: [],
    isGroup: false,
    mentioned: false,
    at: Date.now(),
  };
  return new Promise((resolve, reject) => {
    const s = connect(relayFiles(home).sock);
    let buf = '';
    s.on('connect', () => s.write(`${JSON.stringify(msg)}\n`));
    s.on('data', (d) => {
      buf += d.toString();
      if (buf.includes('\n')) {
        s.end();
        resolve(JSON.parse(buf.slice(0, buf.indexOf('\n'))) as InboundOutcome);
      }
    });
    s.on('error', reject);
  });
}

export interface TestRelayOptions {
  /** How a relay still up after a test is stopped: SIGKILL (default), or SIGTERM, waited for. */
  stop?: 'SIGKILL' | 'SIGTERM';
  /** Runs after the relays are stopped and before the homes go (agents a test started, say). */
  afterStop?: () => void;
}

export interface TestRelays {
  /** A home (makeHome) removed after the test. */
  home(extra?: Record<string, unknown>): Home;
  /** Starts a relay on `home` without waiting; stopped after the test. */
  spawn(home: Home, name?: string): Proc;
  /** Starts a relay on `home` and waits until it says it is ready (fails the test if it exits first). */
  start(home: Home, ms?: number): Promise<Proc>;
}

export function useTestRelay(opts: TestRelayOptions = {}): TestRelays {
  const procs: Proc[] = [];
  const homes: Home[] = [];
  beforeAll(() => {
    expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
  });
  afterEach(async () => {
    for (const p of procs.splice(0)) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
      p.child.kill(opts.stop ?? 'SIGKILL');
      await p.exit;
    }
    opts.afterStop?.();
    for (const h of homes.splice(0)) h.cleanup();
  });
  const spawn = (home: Home, name?: string) => {
    const { sock, sent } = relayFiles(home, name);
    const p = spawnNode([RELAY_SCRIPT, sock, sent], home.env);
    procs.push(p);
    return p;
  };
  return {
    home(extra) {
      const h = makeHome(extra);
      homes.push(h);
      return h;
    },
    spawn,
    async start(home, ms = 45_000) {
      const p = spawn(home);
      const ready = await Promise.race([
        waitFor(() => p.stdout().includes('ready'), ms),
        p.exit.then(() => false),
      ]);
      expect(ready, `relay did not start: ${p.stderr()}`).toBe(true);
      return p;
    },
  };
}
