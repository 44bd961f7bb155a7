// Edits, deletions and reactions through the WhatsApp channel, against the fake socket: an edit is a message
// carrying `edit` with the original's key (ours: fromMe), a reaction one carrying `react` with the key
// of the message it is on (the person's: not fromMe). Both are recorded as ours, so their echoes
// never start a run.
import { describe, expect, it } from 'vitest';
import { whatsappPlugin } from '../../../src/channels/whatsapp/plugin.js';
import { setup } from './harness.js';

const ALICE = '+15557654321';
const ALICE_JID = '15557654321@s.whatsapp.net';

describe('WhatsApp edit and react', () => {
  it('declares both capabilities, and has both methods', async () => {
    expect(whatsappPlugin.capabilities).toMatchObject({ edit: true, react: true });
    const h = await setup();
    expect(typeof h.channel.edit).toBe('function');
    expect(typeof h.channel.react).toBe('function');
  });

  it('edits a message it sent: sendMessage with edit = its key, fromMe', async () => {
    const h = await setup();
    const s = await h.start();
    const sent = await h.channel.send(ALICE, { type: 'text', text: 'draft' });
    expect(sent.ok).toBe(true);
    const id = (sent as { providerId: string }).providerId;
    const r = await h.channel.edit!(ALICE, id, '**final**');
    expect(r.ok).toBe(true);
    expect(s.sent[1]).toMatchObject({
      jid: ALICE_JID,
      content: { text: '*final*', edit: { remoteJid: ALICE_JID, fromMe: true, id } },
    });
  });

  it('deletes a message it sent, for everyone: sendMessage with delete = its key, fromMe', async () => {
    expect(whatsappPlugin.capabilities).toMatchObject({ delete: true });
    const h = await setup();
    const s = await h.start();
    const sent = await h.channel.send(ALICE, { type: 'text', text: 'reading a.ts' });
    const id = (sent as { providerId: string }).providerId;
    const r = await h.channel.delete!(ALICE, id);
    expect(r.ok).toBe(true);
    expect(s.sent[1]).toMatchObject({
      jid: ALICE_JID,
      content: { delete: { remoteJid: ALICE_JID, fromMe: true, id } },
    });
  });

  it("reacts to the person's message: react with its key, not fromMe", async () => {
    const h = await setup();
    const s = await h.start();
    const r = await h.channel.react!(ALICE, 'ABCDEF123', '👍');
    expect(r.ok).toBe(true);
    expect(s.sent).toEqual([
      {
        jid: ALICE_JID,
        content: { react: { text: '👍', key: { remoteJid: ALICE_JID, fromMe: false, id: 'ABCDEF123' } } },
        options: expect.anything(),
      },
    ]);
  });

  it('fails as retryable while the socket is not open, without touching Baileys', async () => {
    const h = await setup();
    const r = await h.channel.react!(ALICE, 'ABCDEF123', '👍');
    expect(r).toMatchObject({ ok: false, retryable: true });
  });
});
