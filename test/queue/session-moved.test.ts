// A chat whose stored session was kept on another machine (agents/session-places.ts): its run starts
// fresh, its reply says once that the chat moved, and the session it used is this machine's from then
// on. Without places (one machine), the same stored session is resumed.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { folderPlaces } from '../../src/agents/session-places.js';
import { NOTICE } from '../../src/core/reply.js';
import { getSession, saveSession } from '../../src/store/sqlite/sessions.js';
import { tempDir } from '../helpers/tmp.js';
import { FakeAgent, type Harness, harness, ok } from './helpers.js';

let h: Harness;
afterEach(() => h?.cleanup());

const answer = () => new FakeAgent((req) => ok(`answer to ${req.prompt}`, { sessionId: req.session.id }));

describe('a session kept on another machine', () => {
  it('starts fresh and says once that the chat moved; the next message resumes here', async () => {
    const agent = answer();
    const places = folderPlaces(join(tempDir('aw-places-'), 'sessions-here'));
    h = harness({ agent, places });
    saveSession(h.store.db, 'console:local', 'claude', 'elsewhere-1', h.clock.now);
    await h.send('where were we');
    await h.queue.whenIdle();
    await h.send('and now');
    await h.queue.whenIdle();
    const fresh = agent.calls[0]?.request.session;
    expect(fresh?.type).toBe('new');
    expect(agent.calls[1]?.request.session).toEqual({ type: 'resume', id: fresh?.id });
    expect(h.channel.texts()).toEqual([
      `${NOTICE.contextMoved}\n\nanswer to where were we`,
      'answer to and now',
    ]);
    expect(places.knows(fresh?.id ?? '')).toBe(true);
    expect(getSession(h.store.db, 'console:local', 'claude')?.sessionId).toBe(fresh?.id);
  });

  it('an unconfirmed session from elsewhere starts fresh with no notice', async () => {
    const agent = answer();
    h = harness({ agent, places: folderPlaces(join(tempDir('aw-places-'), 'sessions-here')) });
    saveSession(h.store.db, 'console:local', 'claude', 'elsewhere-2', h.clock.now, true, false);
    await h.send('hello');
    await h.queue.whenIdle();
    expect(agent.calls.map((c) => c.request.session.type)).toEqual(['new']);
    expect(h.channel.texts()).toEqual(['answer to hello']);
  });

  it('without places (one machine, or the agents state shared) the stored session is resumed', async () => {
    const agent = answer();
    h = harness({ agent });
    saveSession(h.store.db, 'console:local', 'claude', 'kept-3', h.clock.now);
    await h.send('go on');
    await h.queue.whenIdle();
    expect(agent.calls[0]?.request.session).toEqual({ type: 'resume', id: 'kept-3' });
    expect(h.channel.texts()).toEqual(['answer to go on']);
  });
});
