import { describe, expect, it } from 'vitest';
import type { ChannelState } from '../../../src/channels/types.js';
import { registerSecret } from '../../../src/log.js';
import { healthOf } from '../../../src/ops/status/health.js';
import { renderStatus } from '../../../src/ops/status/render.js';
import { buildSnapshot, channelView, cleanText, maskChat } from '../../../src/ops/status/snapshot.js';

const T = Date.UTC(2026, 0, 15, 12, 0, 0);

describe('maskChat', () => {
  it.each([
    ['whatsapp:+15551234567', 'whatsapp:…4567'],
    ['twilio:whatsapp:+447700900123', 'twilio:whatsapp:…0123'],
    ['whatsapp:120363012345678901@g.us', 'whatsapp:…8901@g.us'],
    ['15551234567@s.whatsapp.net', '…4567@s.whatsapp.net'],
    ['+15551234567', '…4567'],
    ['*', '*'],
  ])('%s → %s', (key, masked) => {
    expect(maskChat(key)).toBe(masked);
  });
});

describe('healthOf', () => {
  const ch = (...states: string[]) => states.map((state) => ({ state }));
  it.each([
    [true, ch('connected', 'connected'), 'ok'],
    [true, ch('connected', 'disabled'), 'ok'],
    [true, ch('connected', 'degraded'), 'degraded'],
    [true, ch('connected', 'relink_required'), 'degraded'],
    [true, ch('connecting', 'disabled'), 'down'],
    [true, ch('relink_required'), 'down'],
    [true, ch('disabled', 'disabled'), 'ok'],
    // The channel's socket or poll runs in another relay on the store: this one is fine.
    [true, ch('elsewhere', 'connected'), 'ok'],
    [true, ch('elsewhere', 'degraded'), 'degraded'],
    [false, ch('connected'), 'down'],
  ] as const)('running=%s %j → %s', (running, channels, health) => {
    expect(healthOf(running, channels)).toBe(health);
  });
});

describe('cleanText', () => {
  it('masks phone numbers and registered secrets, and keeps it short', () => {
    registerSecret('tok-abcdef-123456');
    expect(cleanText('send to +1 555 123 4567 failed with tok-abcdef-123456')).toBe(
      'send to …4567 failed with [redacted]',
    );
    expect(cleanText('x'.repeat(400))).toHaveLength(300);
  });
});

describe('buildSnapshot', () => {
  const states: Record<string, ChannelState> = {
    whatsapp: { type: 'connecting', since: T, qr: '2@secret-qr-payload' },
    twilio: { type: 'degraded', since: T, retries: 3, lastError: 'HTTP 401 for +15557654321' },
  };
  const s = buildSnapshot({
    now: T + 60_000,
    source: 'relay',
    relay: { running: true, pid: 99, startedAt: T - 3_600_000, version: '0.1.0' },
    channels: [
      { name: 'whatsapp', state: states.whatsapp as ChannelState },
      { name: 'twilio', state: states.twilio as ChannelState },
    ],
    lanes: [
      { chat: 'whatsapp:+15551234567', pending: 2, active: { startedAt: T, label: 'user', messages: 1 } },
      { chat: 'twilio:+15557654321', pending: 0 },
    ],
    maxConcurrentRuns: 4,
    sessions: [
      { chat: 'whatsapp:+15551234567', agent: 'claude', lastUsedAt: T - 10 },
      { chat: '*', agent: 'codex', lastUsedAt: T },
    ],
    heartbeat: { target: 'whatsapp:+15551234567', nextAt: T + 1_800_000 },
    schedules: [{ id: 'daily', target: 'twilio:+15557654321', nextAt: T + 86_400_000 }],
    runs: Array.from({ length: 30 }, (_, i) => ({
      at: T - i * 1000,
      chat: 'whatsapp:+15551234567',
      agent: 'claude',
      durationMs: 1234.6,
      outcome: i % 2 ? 'ok' : 'timeout',
    })),
    failures: [{ at: T, chat: 'twilio:+15557654321', kind: 'delivery', message: 'to +15557654321: 21610' }],
  });

  it('masks every chat and account and never carries the QR text', () => {
    const json = JSON.stringify(s);
    expect(json).not.toMatch(/\+1555|15551234567|15557654321/);
    expect(json).not.toContain('secret-qr-payload');
    expect(s.channels[0]).toEqual({
      name: 'whatsapp',
      state: 'connecting',
      since: new Date(T).toISOString(),
      qrAvailable: true,
    });
    expect(s.channels[1]).toMatchObject({ state: 'degraded', retries: 3, lastError: 'HTTP 401 for …4321' });
  });

  it('shows an account as is only when its channel says it is public, and masks every other', () => {
    const view = (name: string, account: string, accountPublic?: boolean) =>
      channelView(name, {
        type: 'connected',
        since: T,
        account,
        ...(accountPublic !== undefined && { accountPublic }),
      }).account;
    expect(view('telegram', '@agent_bot', true)).toBe('@agent_bot');
    // The rule is the channel's field, not a shape snapshot.ts knows: any channel may use it.
    expect(view('pigeon', '@loft_keeper', true)).toBe('@loft_keeper');
    // WhatsApp and Twilio numbers stay masked as before.
    expect(view('whatsapp', '+15551234567')).toBe('…4567');
    expect(view('twilio', '+15557654321')).toBe('…4321');
    expect(view('twilio', 'whatsapp:+15557654321')).toBe('whatsapp:…4321');
    // A handle-shaped name from a channel that does not say it is public is masked too.
    expect(view('whatsapp', '@agent_bot')).toBe('…_bot');
    expect(view('pigeon', '@loft_keeper', false)).toBe('…eper');
  });

  it('summarises the queue, keeps only chats with work, sorts sessions newest first', () => {
    expect(s.queue).toEqual({
      pendingTotal: 2,
      activeRuns: 1,
      maxConcurrentRuns: 4,
      chats: [
        {
          chat: 'whatsapp:…4567',
          pending: 2,
          active: { startedAt: new Date(T).toISOString(), label: 'user', messages: 1 },
        },
      ],
    });
    expect(s.sessions.map((x) => x.chat)).toEqual(['*', 'whatsapp:…4567']);
    expect(s.heartbeat).toEqual({
      enabled: true,
      target: 'whatsapp:…4567',
      nextAt: new Date(T + 1_800_000).toISOString(),
    });
    expect(s.schedules).toEqual([
      { id: 'daily', target: 'twilio:…4321', nextAt: new Date(T + 86_400_000).toISOString() },
    ]);
  });

  it('keeps the 20 newest runs with whole-millisecond durations', () => {
    expect(s.recentRuns).toHaveLength(20);
    expect(s.recentRuns[0]).toEqual({
      at: new Date(T).toISOString(),
      chat: 'whatsapp:…4567',
      agent: 'claude',
      durationMs: 1235,
      outcome: 'timeout',
    });
  });

  it('a label that is not a chat key becomes a fixed word, never passed through', () => {
    const x = buildSnapshot({
      now: T,
      source: 'store',
      relay: { running: false },
      channels: [],
      heartbeat: { target: 'the linked WhatsApp self-chat +15551234567' },
    });
    expect(x.heartbeat.target).toBe('the WhatsApp self-chat');
    expect(x.health).toBe('down');
  });

  it('says why the heartbeat is off when it has no chat to check in with', () => {
    const off = buildSnapshot({
      now: T,
      source: 'store',
      relay: { running: false },
      channels: [],
      heartbeatOff: 'no_target',
    });
    expect(off.heartbeat).toEqual({ enabled: false, reason: 'no_target' });
    expect(renderStatus(off, T)).toContain('Heartbeat: off (no heartbeat.target, and WhatsApp');
    const plain = buildSnapshot({ now: T, source: 'store', relay: { running: false }, channels: [] });
    expect(plain.heartbeat).toEqual({ enabled: false });
    expect(renderStatus(plain, T)).toContain('Heartbeat: off\n');
  });

  it('a one-shot that ran says done rather than "not scheduled"', () => {
    const x = buildSnapshot({
      now: T,
      source: 'store',
      relay: { running: false },
      channels: [],
      schedules: [
        { id: 'once', target: 'twilio:+15557654321', state: 'done' },
        { id: 'later', target: 'twilio:+15557654321', nextAt: T + 60_000 },
      ],
    });
    expect(x.schedules).toEqual([
      { id: 'once', target: 'twilio:…4321', state: 'done' },
      { id: 'later', target: 'twilio:…4321', nextAt: new Date(T + 60_000).toISOString() },
    ]);
    expect(renderStatus(x, T)).toContain('  once             done (one-shot already ran) → twilio:…4321');
  });

  it('renders for humans with relative times and the same masking', () => {
    const text = renderStatus(s, T + 60_000);
    expect(text).toContain('relay: running (pid 99, up 1h 1m, agentwire 0.1.0)');
    expect(text).not.toContain('restart the relay to run it');
    // After an upgrade, the relay still runs the old code: say so, once.
    const upgraded = renderStatus({ ...s, cli: { version: '0.2.0' } }, T + 60_000);
    expect(upgraded.split('\n')[1]).toBe('  this agentwire is 0.2.0: restart the relay to run it');
    expect(renderStatus({ ...s, cli: { version: '0.1.0' } }, T)).not.toContain('restart the relay');
    expect(text).toContain('health: down');
    expect(text).toContain(
      'whatsapp  waiting for the QR code to be scanned for 1m 0s (open the web console or run `agentwire login`)',
    );
    expect(text).toContain('twilio    degraded for 1m 0s, 3 retries; last error: HTTP 401 for …4321');
    expect(text).toContain('Queue: 2 waiting, 1 of 4 running');
    expect(text).toContain('whatsapp:…4567       2 waiting, running for 1m 0s');
    expect(text).toContain('* (all chats)');
    expect(text).toContain(
      `Heartbeat: next in 29m 0s (${new Date(T + 1_800_000).toISOString()}) → whatsapp:…4567`,
    );
    expect(text).toContain('delivery: to …4321: 21610');
    expect(text).not.toMatch(/\+1555/);
  });
});

describe('WhatsApp liveness and reachability in the status', () => {
  const snap = (state: ChannelState) =>
    buildSnapshot({
      now: T,
      source: 'relay',
      relay: { running: true, pid: 1 },
      channels: [{ name: 'whatsapp', state }],
    });

  it('an unreachable WhatsApp: connecting, with the network error and the attempt', () => {
    const s = snap({
      type: 'connecting',
      since: T - 90_000,
      lastError: 'WhatsApp is unreachable: WebSocket Error (getaddrinfo EAI_AGAIN web.whatsapp.com)',
      retries: 3,
    });
    expect(s.channels[0]).toMatchObject({
      state: 'connecting',
      retries: 3,
      lastError: expect.stringMatching(/EAI_AGAIN/),
    });
    expect(renderStatus(s, T)).toContain(
      'whatsapp  connecting for 1m 30s (WhatsApp is unreachable: WebSocket Error (getaddrinfo EAI_AGAIN web.whatsapp.com); attempt 4)',
    );
  });

  it('the last liveness check, when and what it said, on connected and degraded', () => {
    const ok = snap({
      type: 'connected',
      since: T - 3_600_000,
      probe: { ok: true, at: T - 120_000, detail: 'answered in 140 ms' },
    });
    expect(ok.channels[0]?.probe).toEqual({
      ok: true,
      at: '2026-01-15T11:58:00.000Z',
      detail: 'answered in 140 ms',
    });
    expect(renderStatus(ok, T)).toContain('connected for 1h 0m; last check 2m 0s ago: answered in 140 ms');
    const bad = snap({
      type: 'degraded',
      since: T - 60_000,
      lastError:
        'WhatsApp looks connected but failed 2 liveness checks in a row (last: no answer within 30 s); reconnecting',
      retries: 2,
      probe: { ok: false, at: T - 5_000, detail: 'no answer within 30 s' },
    });
    expect(renderStatus(bad, T)).toContain('; last check 5s ago: failed, no answer within 30 s');
  });
});
