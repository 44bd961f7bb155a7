// The relay in this test process (startRelay: store, queue, cold runner, tool host) with only the
// Twilio channel, against a fake Twilio API: the rig the tests of agent tools, sandboxes and
// attachments share. `useTwilioRelay()` registers the hooks: the build is checked once (the tool
// helper `agentwire mcp` runs from dist/), and after each test the relays it started are stopped,
// then the fake APIs closed and the homes removed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, expect } from 'vitest';
import { CHANNELS } from '../../src/channels/registry.js';
import type { TwilioChannel } from '../../src/channels/twilio/index.js';
import { type RelayOptions, type RunningRelay, startRelay } from '../../src/relay.js';
import {
  type FakeTwilio,
  fakeTwilioSection,
  startFakeTwilio,
} from '../channels/twilio/helpers/fake-twilio.js';
import { type Home, makeHome, ROOT } from './helpers.js';

const BIN = join(ROOT, 'dist/cli/bin.js');

export interface TwilioRelay {
  home: Home;
  relay: RunningRelay;
  fake: FakeTwilio;
  /** The relay's inbound webhook. */
  url: string;
  /** The bodies of the messages the relay sent through the fake API, oldest first. */
  bodies(): string[];
  /** The relay's log lines. */
  lines: Record<string, unknown>[];
}

export interface TwilioRelayStart {
  /** Merged over the home's config; `twilio` is the section for the fake API. */
  config?: Record<string, unknown>;
  /** Merged over that Twilio section (allowFrom…). */
  twilio?: Record<string, unknown>;
  services?: RelayOptions['services'];
}

export function useTwilioRelay(): { start(o?: TwilioRelayStart): Promise<TwilioRelay> } {
  const relays: RunningRelay[] = [];
  const fakes: FakeTwilio[] = [];
  const homes: Home[] = [];
  beforeAll(() => {
    expect(existsSync(BIN), 'build first: npm run build').toBe(true);
  });
  afterEach(async () => {
    for (const r of relays.splice(0)) await r.stop(0);
    for (const f of fakes.splice(0)) await f.close();
    for (const h of homes.splice(0)) h.cleanup();
  });
  return {
    async start(o = {}) {
      const fake = await startFakeTwilio();
      fakes.push(fake);
      const home = makeHome({ ...o.config, twilio: fakeTwilioSection(fake, 0, o.twilio) });
      homes.push(home);
      const ctx = home.ctx();
      const relay = await startRelay(ctx, {
        channels: CHANNELS.filter((f) => f.name === 'twilio'),
        services: o.services ?? [],
        toolsEntry: { command: process.execPath, args: [BIN] },
      });
      relays.push(relay);
      const url = `http://127.0.0.1:${(relay.channels.get('twilio') as TwilioChannel).port()}/twilio/inbound`;
      return {
        home,
        relay,
        fake,
        url,
        bodies: () => fake.created.map((m) => m.body ?? ''),
        lines: ctx.lines,
      };
    },
  };
}
