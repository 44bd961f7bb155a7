// A stand-in for the running relay's status: a fake WhatsApp channel whose state the test drives
// (QR codes arriving and rotating, then the connection opening), put through the real snapshot builder.
import type { ChannelState } from '../../src/channels/types.js';
import { buildSnapshot, type StatusSnapshot } from '../../src/ops/status/snapshot.js';

export class FakeWhatsapp {
  state: ChannelState = { type: 'connecting', since: Date.now() };
  emitQr(qr: string): void {
    this.state = { type: 'connecting', since: Date.now(), qr };
  }
  open(account: string): void {
    this.state = { type: 'connected', since: Date.now(), account };
  }
  qr(): string | undefined {
    return this.state.type === 'connecting' ? this.state.qr : undefined;
  }
}

export function fakeStatus(wa: FakeWhatsapp): () => StatusSnapshot {
  const t0 = Date.now() - 60_000;
  return () =>
    buildSnapshot({
      now: Date.now(),
      source: 'relay',
      relay: { running: true, pid: 4242, startedAt: t0, version: '0.1.0' },
      channels: [
        { name: 'whatsapp', state: wa.state },
        { name: 'twilio', state: { type: 'disabled' } },
      ],
      lanes: [{ chat: 'whatsapp:+15551234567', pending: 2, active: { agent: 'claude', startedAt: t0 } }],
      runs: [
        { at: t0, chat: 'whatsapp:+15551234567', agent: 'claude', durationMs: 4200, outcome: 'ok' },
        {
          at: t0 - 5000,
          chat: 'twilio:+15557654321',
          agent: 'codex',
          durationMs: 600_000,
          outcome: 'timeout',
        },
      ],
      failures: [
        { at: t0 - 5000, chat: 'twilio:+15557654321', kind: 'timeout', message: 'killed after 600s' },
      ],
    });
}
