import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ATTACHMENTS } from '../../src/queue/compose.js';
import { getInbound } from '../../src/store/sqlite/inbox.js';
import { rowsForKey } from '../../src/store/sqlite/outbox.js';
import { approveAll, FakeAgent, FakeChannel, fail, type Harness, harness, ok } from './helpers.js';

let h: Harness;
afterEach(() => h?.cleanup());

describe('replies', () => {
  it('chunks a long reply for the channel limit, in order', async () => {
    const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    h = harness({ channel: new FakeChannel('console', 200), agent: new FakeAgent(() => ok(long)) });
    await h.send('talk');
    await h.queue.whenIdle();
    const texts = h.channel.texts();
    expect(texts.length).toBeGreaterThan(4);
    for (const t of texts) expect(t.length).toBeLessThanOrEqual(200);
    expect(texts.join(' ')).toBe(long);
  });

  it('sends approved attachments after the text and a notice for refused ones', async () => {
    const agent = new FakeAgent(() =>
      ok('here you go', { media: ['./chart.png', '/etc/passwd', 'https://example.com/x.pdf'] }),
    );
    h = harness({ agent });
    await h.send('chart?');
    await h.queue.whenIdle();
    expect(h.channel.sent.map((s) => s.item.type)).toEqual(['text', 'file', 'url']);
    expect(h.channel.texts()[0]).toBe(
      'here you go\n\n(Attachment not sent: /etc/passwd: outside the allowed folders.)',
    );
    expect(h.channel.sent[1]?.item).toMatchObject({ type: 'file', path: '/work/dir/chart.png' });
  });

  it('sends a file named twice in different spellings once', async () => {
    const agent = new FakeAgent(() =>
      ok('twice', { media: ['./chart.png', './sub/../chart.png', 'https://example.com/x', './chart.png'] }),
    );
    h = harness({
      agent,
      mediaPolicy: async (refs) =>
        refs.map((ref) =>
          ref.startsWith('https://')
            ? { type: 'approved', item: { type: 'url', url: ref } }
            : {
                type: 'approved',
                item: {
                  type: 'file',
                  path: '/work/dir/chart.png',
                  mimeType: 'image/png',
                  fileName: 'chart.png',
                  sizeBytes: 3,
                },
              },
        ),
    });
    await h.send('chart?');
    await h.queue.whenIdle();
    expect(h.channel.texts()).toEqual(['twice', '[file]', '[url]']);
  });

  it('checks and sends at most MAX_ATTACHMENTS attachments, naming how many more were not sent', async () => {
    const refs = Array.from({ length: MAX_ATTACHMENTS + 5 }, (_, i) => `./f${i}.png`);
    const checked: string[] = [];
    h = harness({
      agent: new FakeAgent(() => ok('lots', { media: refs })),
      mediaPolicy: async (rs, ctx) => {
        checked.push(...rs);
        return approveAll(rs, ctx);
      },
    });
    await h.send('all of them');
    await h.queue.whenIdle();
    expect(checked).toEqual(refs.slice(0, MAX_ATTACHMENTS));
    expect(h.channel.texts()[0]).toBe(
      `lots\n\n(5 more attachments not sent: a reply may carry at most ${MAX_ATTACHMENTS}.)`,
    );
    expect(h.channel.sent.filter((s) => s.item.type === 'file')).toHaveLength(MAX_ATTACHMENTS);
  });

  it('a failing media policy refuses everything rather than send unchecked', async () => {
    const agent = new FakeAgent(() => ok('x', { media: ['./a.png'] }));
    h = harness({
      agent,
      mediaPolicy: async () => {
        throw new Error('boom');
      },
    });
    await h.send('go');
    await h.queue.whenIdle();
    expect(h.channel.sent.map((s) => s.item.type)).toEqual(['text']);
    expect(h.channel.texts()[0]).toContain('Attachment not sent: ./a.png: the attachment check failed');
  });

  it('an agent error is one short sentence; the message is marked failed; the next message still runs', async () => {
    const agent = new FakeAgent((req, n) =>
      n === 1
        ? fail('exit', 'Traceback (most recent call last):\n  File "x"', { exitCode: 1 })
        : ok(`ok ${req.prompt}`),
    );
    h = harness({ agent, config: { queue: { whileBusy: 'followup' } } });
    const first = await h.send('crash');
    await h.send('next');
    await h.channel.untilSent(2);
    expect(h.channel.texts()).toEqual(['The agent (claude) exited with code 1.', 'ok next']);
    expect(first.type === 'stored' && getInbound(h.store.db, first.inboxId)).toMatchObject({
      status: 'failed',
      note: 'exit',
    });
  });

  it('an agent that cannot be resolved is reported, not thrown', async () => {
    const agent = new FakeAgent();
    h = harness({ agent, resolver: agent.resolver({ unavailable: ['claude'] }) });
    await h.send('hi');
    await h.queue.whenIdle();
    expect(h.channel.texts()).toEqual(['claude is not installed.']);
  });

  it('an exception inside the relay fails the message and tells the user', async () => {
    const agent = new FakeAgent(() => {
      throw new Error('unexpected');
    });
    h = harness({ agent });
    await h.send('hi');
    await h.queue.whenIdle();
    expect(h.channel.texts()).toEqual([
      'Something went wrong in the relay while answering; the error was logged.',
    ]);
    expect(h.lines.some((l) => l.msg === 'run failed inside the relay')).toBe(true);
  });

  it('the typing indicator is switched on for the run and off after', async () => {
    h = harness();
    await h.send('hi');
    await h.queue.whenIdle();
    expect(h.channel.typingCalls).toEqual([true, false]);
  });

  it('writes the reply to the outbox under the inbound id before sending', async () => {
    h = harness();
    const r = await h.send('hi');
    await h.queue.whenIdle();
    const id = r.type === 'stored' ? r.inboxId : -1;
    expect(rowsForKey(h.store.db, `in:${id}`)).toEqual([
      expect.objectContaining({ idx: 0, status: 'sent', item: { type: 'text', text: 'echo: hi' } }),
    ]);
  });
});
