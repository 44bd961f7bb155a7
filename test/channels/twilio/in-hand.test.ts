// The webhook counts each request from the moment it is in hand until its answer is written, so an
// agent start waits for the answers (core/answering.ts, runner/spawn-turn.ts).
import { afterEach, describe, expect, it } from 'vitest';
import type { InboundOutcome } from '../../../src/channels/types.js';
import { unanswered } from '../../../src/core/answering.js';
import { type Harness, smsParams, startChannel, twilioConfig, twilioPost } from './helpers/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

describe('webhooks in hand', () => {
  it('counts a webhook until its 200 is written, and a forged one until its 403', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let reached!: () => void;
    const inHandler = new Promise<void>((r) => {
      reached = r;
    });
    h = await startChannel(twilioConfig({}), () => async (): Promise<InboundOutcome> => {
      reached();
      await held;
      return { type: 'stored', inboxId: 1 };
    });
    const base = unanswered();
    const url = `${h.base}/twilio/inbound`;
    const answer = twilioPost(url, smsParams());
    await inHandler;
    expect(unanswered()).toBe(base + 1);
    release();
    expect((await answer).status).toBe(200);
    expect(unanswered()).toBe(base);

    const forged = await twilioPost(url, smsParams(), { signature: 'forged' });
    expect(forged.status).toBe(403);
    expect(unanswered()).toBe(base);
  });
});
