import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeBotApi, startFakeBotApi, TOKEN } from './fake-bot-api.js';
import { type Harness, harness, telegramConfig, until } from './harness.js';

describe('Telegram channel: replies, files, typing and send failures (fake Bot API)', () => {
  let api: FakeBotApi;
  let h: Harness;
  const stops: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    api = await startFakeBotApi();
    h = harness();
  });
  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
    await api.close();
    h.cleanup();
  });
  const start = async (over: Parameters<Harness['make']>[1] = {}, section: Record<string, unknown> = {}) => {
    const ch = h.make(telegramConfig(api.url, section), over);
    stops.push(() => ch.stop());
    await ch.start(h.handler);
    await until(() => ch.status().type === 'connected');
    return ch;
  };

  it('sends Markdown as HTML with link previews off, and returns the message id', async () => {
    const ch = await start();
    const r = await ch.send('42', { type: 'text', text: '**Done**: see `a<b>` & [docs](https://x.dev/a_b)' });
    expect(r.ok && r.providerId).toMatch(/^\d+$/);
    const p = api.callsOf('sendMessage')[0]!.params;
    expect(p).toMatchObject({
      chat_id: '42',
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    });
    expect(p.text).toBe(
      '<b>Done</b>: see <code>a&lt;b&gt;</code> &amp; <a href="https://x.dev/a_b">docs</a>',
    );
  });

  it("sends the plain text when Telegram answers 400 can't parse entities", async () => {
    const ch = await start();
    api.failNext('sendMessage', {
      error_code: 400,
      description: "Bad Request: can't parse entities: unclosed tag",
    });
    const r = await ch.send('42', { type: 'text', text: '**bold** text' });
    expect(r.ok).toBe(true);
    const sent = api.callsOf('sendMessage');
    expect(sent).toHaveLength(2);
    expect(sent[1]!.params.parse_mode).toBeUndefined();
    expect(sent[1]!.params.text).toBe('**bold** text');
  });

  it('cuts text into messages of at most 4,096 characters after formatting', async () => {
    const ch = await start();
    // Each "&" becomes "&amp;" (5 characters): 4,000 of them are 20,000 once formatted.
    const text = `${'a & b < c '.repeat(400)}\n\n${'word '.repeat(900)}`;
    const r = await ch.send('42', { type: 'text', text });
    expect(r.ok).toBe(true);
    const sent = api.callsOf('sendMessage').map((c) => String(c.params.text));
    expect(sent.length).toBeGreaterThan(2);
    for (const s of sent) expect(s.length).toBeLessThanOrEqual(4096);
    const back = sent.join(' ').replace(/&lt;/g, '<').replace(/&amp;/g, '&').replace(/\s+/g, ' ');
    expect(back).toBe(text.replace(/\s+/g, ' ').trim());
  });

  it('a transient failure after the first part of a long text is waited out, so no part goes twice', async () => {
    const waits: number[] = [];
    const ch = await start({
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    const text = `${'a'.repeat(3000)}\n\n${'b'.repeat(3000)}\n\n${'c'.repeat(3000)}`;
    api.failNext(
      'sendMessage',
      { error_code: 429, description: 'Too Many Requests', parameters: { retry_after: 5 } },
      1,
    );
    api.failNext('sendMessage', { error_code: 502, description: 'Bad Gateway' });
    const r = await ch.send('42', { type: 'text', text });
    expect(r.ok).toBe(true);
    expect(waits).toEqual([5000, 3000]);
    const sent = api.callsOf('sendMessage').map((c) => String(c.params.text)[0]);
    // Tried: a, b (429), b (502), b, c: each part delivered once.
    expect(sent).toEqual(['a', 'b', 'b', 'b', 'c']);
    // A long rate limit is the outbox's to wait: the part fails back to it.
    api.failNext(
      'sendMessage',
      { error_code: 429, description: 'Too Many Requests', parameters: { retry_after: 600 } },
      1,
    );
    expect(await ch.send('42', { type: 'text', text })).toMatchObject({ ok: false, retryAfterMs: 600_000 });
  });

  it('429: retryable after retry_after; network down: retryable; 400: not retryable', async () => {
    const ch = await start();
    api.failNext('sendMessage', {
      error_code: 429,
      description: 'Too Many Requests: retry after 7',
      parameters: { retry_after: 7 },
    });
    expect(await ch.send('42', { type: 'text', text: 'hi' })).toMatchObject({
      ok: false,
      retryable: true,
      retryAfterMs: 7000,
      code: '429',
    });
    api.failNext('sendMessage', { error_code: 400, description: 'Bad Request: chat not found' });
    expect(await ch.send('43', { type: 'text', text: 'hi' })).toMatchObject({ ok: false, retryable: false });
    api.failNext('sendMessage', { error_code: 502, description: 'Bad Gateway' });
    expect(await ch.send('42', { type: 'text', text: 'hi' })).toMatchObject({ ok: false, retryable: true });
    await api.close();
    const down = await ch.send('42', { type: 'text', text: 'hi' });
    expect(down).toMatchObject({ ok: false, retryable: true });
    // The network error's cause names the request URL, token included: it never reaches the result.
    expect(JSON.stringify(down)).not.toContain(TOKEN.split(':')[1]);
  });

  it('403: not retryable, that chat is marked and no later send reaches Telegram, warned once with the id masked', async () => {
    const ch = await start({}, { allowFrom: [42, 123456789] });
    api.failNext('sendMessage', { error_code: 403, description: 'Forbidden: bot was blocked by the user' });
    expect(await ch.send('123456789', { type: 'text', text: 'hi' })).toMatchObject({
      ok: false,
      retryable: false,
      code: 'blocked',
    });
    const calls = api.callsOf('sendMessage').length;
    expect(await ch.send('123456789', { type: 'text', text: 'again' })).toMatchObject({
      ok: false,
      retryable: false,
      code: 'blocked',
    });
    expect(api.callsOf('sendMessage')).toHaveLength(calls);
    const warns = h.logs.filter((l) => l.includes('blocked the bot'));
    expect(warns).toHaveLength(1);
    expect(warns[0]).toContain('…6789');
    expect(warns[0]).not.toContain('123456789');
    // Other chats are not affected, and the user writing again lifts the mark.
    expect((await ch.send('42', { type: 'text', text: 'hi' })).ok).toBe(true);
    api.push({
      message: {
        message_id: 3,
        date: 1,
        chat: { id: 123456789, type: 'private' },
        from: { id: 123456789, is_bot: false, first_name: 'A' },
        text: 'back',
      },
    });
    await until(() => h.received.some((m) => m.text === 'back'));
    expect((await ch.send('123456789', { type: 'text', text: 'welcome back' })).ok).toBe(true);
  });

  it('sends files by type: photo, video, voice, document, with an HTML caption', async () => {
    const ch = await start();
    const file = (name: string, bytes: Buffer) => {
      const path = join(h.dir, name);
      writeFileSync(path, bytes);
      return { path, fileName: name, sizeBytes: bytes.length };
    };
    const png = file('a.png', Buffer.from('89504e470d0a1a0a0000', 'hex'));
    expect(
      (await ch.send('42', { type: 'file', ...png, mimeType: 'image/png', caption: '**chart**' })).ok,
    ).toBe(true);
    const photo = api.callsOf('sendPhoto')[0]!;
    expect(photo.params).toMatchObject({ chat_id: '42', caption: '<b>chart</b>', parse_mode: 'HTML' });
    expect(photo.files.photo?.bytes.equals(Buffer.from('89504e470d0a1a0a0000', 'hex'))).toBe(true);
    await ch.send('42', { type: 'file', ...file('v.mp4', Buffer.from('mp4')), mimeType: 'video/mp4' });
    await ch.send('42', { type: 'file', ...file('n.ogg', Buffer.from('OggS')), mimeType: 'audio/ogg' });
    await ch.send('42', { type: 'file', ...file('r.pdf', Buffer.from('%PDF')), mimeType: 'application/pdf' });
    expect(api.callsOf('sendVideo')).toHaveLength(1);
    expect(api.callsOf('sendVoice')).toHaveLength(1);
    expect(api.callsOf('sendDocument')[0]!.files.document?.name).toBe('r.pdf');
  });

  it('a file over the outbound cap becomes a notice; a caption over 1,024 characters follows as text', async () => {
    const ch = h.make(telegramConfig(api.url, {}, { media: { maxOutboundMb: 1 } }));
    stops.push(() => ch.stop());
    await ch.start(h.handler);
    await until(() => ch.status().type === 'connected');
    const big = join(h.dir, 'big.bin');
    writeFileSync(big, Buffer.alloc(1024 * 1024 + 1));
    await ch.send('42', {
      type: 'file',
      path: big,
      fileName: 'big.bin',
      sizeBytes: 1024 * 1024 + 1,
      mimeType: 'application/octet-stream',
    });
    expect(api.callsOf('sendDocument')).toHaveLength(0);
    expect(String(api.callsOf('sendMessage')[0]!.params.text)).toMatch(/big\.bin.*not sent/);
    const small = join(h.dir, 's.pdf');
    writeFileSync(small, '%PDF');
    const caption = 'x'.repeat(1500);
    await ch.send('42', {
      type: 'file',
      path: small,
      fileName: 's.pdf',
      sizeBytes: 4,
      mimeType: 'application/pdf',
      caption,
    });
    expect(api.callsOf('sendDocument')[0]!.params.caption).toBeUndefined();
    expect(api.callsOf('sendMessage').at(-1)!.params.text).toBe(caption);
  });

  it('typing: sendChatAction typing now and again on every tick until turned off', async () => {
    let tick: (() => void) | undefined;
    const ch = await start({
      typingTimers: {
        setInterval: (fn) => {
          tick = fn;
          return 1;
        },
        clearInterval: () => {
          tick = undefined;
        },
      },
    });
    await ch.typing!('42', true);
    tick!();
    tick!();
    await until(() => api.callsOf('sendChatAction').length === 3);
    expect(api.callsOf('sendChatAction')[0]!.params).toMatchObject({ chat_id: '42', action: 'typing' });
    await ch.typing!('42', false);
    expect(tick).toBeUndefined();
  });
});
