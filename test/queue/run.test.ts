// A run told to stop before its agent started (while its attachments download): the agent is not
// started with a stopped signal. An interrupt folds the run's messages into the next one; a /stop
// drops them unanswered.
import { afterEach, describe, expect, it } from 'vitest';
import type { FetchedMedia, RemoteMedia } from '../../src/core/types.js';
import { getInbound } from '../../src/store/sqlite/inbox.js';
import { FakeChannel, type Harness, harness } from './helpers.js';

/** A channel whose downloads wait until the test lets them finish. */
class SlowDownloads extends FakeChannel {
  started = 0;
  private release: (() => void) | undefined;
  private readonly gate = new Promise<void>((r) => {
    this.release = r;
  });
  async fetchMedia(_chatId: string, remote: readonly RemoteMedia[]): Promise<FetchedMedia> {
    this.started++;
    await this.gate;
    return { media: [], notes: remote.map(() => '[photo]') };
  }
  finishDownloads(): void {
    this.release?.();
  }
}

const photo = { remoteMedia: [{ url: 'https://example.test/p.jpg', mimeType: 'image/jpeg' }] };

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 2));
}

let h: Harness;
afterEach(() => h?.cleanup());

describe('a run stopped before its agent started', () => {
  it('interrupt: the next run takes its message with the new one, in one prompt', async () => {
    const channel = new SlowDownloads();
    h = harness({ channel, config: { queue: { whileBusy: 'interrupt' } } });
    const first = await h.send('look at this', photo);
    await until(() => channel.started === 1);
    await h.send('and also this');
    channel.finishDownloads();
    await h.queue.whenIdle();
    expect(h.agent.prompts()).toHaveLength(1);
    expect(h.agent.prompts()[0]).toContain('look at this');
    expect(h.agent.prompts()[0]).toContain('and also this');
    // The interrupt is not a crash: the try was taken back before the run that answered it.
    if (first.type !== 'stored') throw new Error('not stored');
    expect(getInbound(h.store.db, first.inboxId)).toMatchObject({ status: 'done', tries: 1 });
  });

  it('/stop: the message is dropped, never run and never answered', async () => {
    const channel = new SlowDownloads();
    h = harness({ channel });
    const first = await h.send('look at this', photo);
    await until(() => channel.started === 1);
    await h.send('/stop');
    channel.finishDownloads();
    await h.queue.whenIdle();
    expect(h.agent.calls).toHaveLength(0);
    expect(h.channel.texts()).toEqual(['Stopped the agent.']);
    if (first.type !== 'stored') throw new Error('not stored');
    expect(getInbound(h.store.db, first.inboxId)).toMatchObject({ status: 'done', note: 'stopped' });
  });
});
