import { proto } from '@whiskeysockets/baileys';
import { describe, expect, it } from 'vitest';
import { ownIds } from '../../../src/channels/whatsapp/jid.js';
import { classify, type NormalizeContext } from '../../../src/channels/whatsapp/normalize.js';
import { OWNER_LID, OWNER_PN } from './fake-socket.js';
import { extended, text, waMessage } from './messages.js';

const NOW = 1_800_000_000_000;
const ctx: NormalizeContext = {
  own: ownIds({ id: `${OWNER_PN}:7@s.whatsapp.net`, lid: `${OWNER_LID}:7@lid` }),
  now: NOW,
  offlineWindowMs: 300_000,
};
const ts = (agoSeconds: number) => Math.floor(NOW / 1000) - agoSeconds;
const ALICE = '15557654321@s.whatsapp.net';
const GROUP = '120363040000000001@g.us';
const SELF = `${OWNER_PN}@s.whatsapp.net`;

describe('classify: ignored kinds', () => {
  it.each([
    ['status broadcast', text({ chat: 'status@broadcast', participant: ALICE }, 'my status'), 'status'],
    ['broadcast list', text({ chat: '1234567890@broadcast', participant: ALICE }, 'hi all'), 'broadcast'],
    ['newsletter', text({ chat: '120363999@newsletter' }, 'news'), 'newsletter'],
    ['Meta AI', text({ chat: '13135550002@bot' }, 'hello'), 'bot'],
    [
      'protocol message (revoke)',
      waMessage({ chat: ALICE }, { protocolMessage: { type: proto.Message.ProtocolMessage.Type.REVOKE } }),
      'protocol',
    ],
    [
      'history sync notification',
      waMessage(
        { chat: SELF, fromMe: true },
        {
          protocolMessage: {
            type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
            historySyncNotification: { syncType: proto.HistorySync.HistorySyncType.RECENT },
          },
        },
      ),
      'protocol',
    ],
    [
      'reaction',
      waMessage({ chat: ALICE }, { reactionMessage: { text: '👍', key: { id: 'X' } } }),
      'reaction',
    ],
    ['edit', waMessage({ chat: ALICE }, { editedMessage: { message: { conversation: 'edited' } } }), 'edit'],
    [
      'encrypted reaction',
      waMessage(
        { chat: GROUP, participant: ALICE },
        { encReactionMessage: { encPayload: Buffer.from('x') } },
      ),
      'reaction',
    ],
    [
      'poll vote',
      waMessage({ chat: ALICE }, { pollUpdateMessage: { pollCreationMessageKey: { id: 'P' } } }),
      'protocol',
    ],
    ['pin', waMessage({ chat: ALICE }, { pinInChatMessage: { key: { id: 'X' } } }), 'protocol'],
    ['keep in chat', waMessage({ chat: ALICE }, { keepInChatMessage: { key: { id: 'X' } } }), 'protocol'],
    [
      'group status post',
      waMessage(
        { chat: GROUP, participant: ALICE },
        { groupStatusMessageV2: { message: { conversation: 'my story' } } },
      ),
      'status',
    ],
    [
      'edit inside a disappearing chat',
      waMessage(
        { chat: ALICE },
        {
          ephemeralMessage: {
            message: {
              protocolMessage: {
                type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
                editedMessage: { conversation: 'changed' },
              },
            },
          },
        },
      ),
      'protocol',
    ],
    [
      'sender key distribution only',
      waMessage({ chat: GROUP, participant: ALICE }, { senderKeyDistributionMessage: { groupId: GROUP } }),
      'no_content',
    ],
    ['no message (stub)', waMessage({ chat: ALICE }, null), 'no_content'],
    ['empty text', text({ chat: ALICE }, '   '), 'no_content'],
    [
      'an event invitation (unsupported)',
      waMessage({ chat: ALICE }, { eventMessage: { name: 'Party' } }),
      'unsupported',
    ],
    [
      'a location without coordinates or words',
      waMessage({ chat: ALICE }, { locationMessage: { degreesLatitude: 1 } }),
      'unsupported',
    ],
    ['owner writing to someone else', text({ chat: ALICE, fromMe: true }, 'hey'), 'own_message'],
  ])('%s → %s', (_name, msg, reason) => {
    expect(classify(msg, 'notify', ctx)).toEqual({ type: 'ignore', reason });
  });
});

describe('classify: the owner in a group', () => {
  it('is passed on (as the owner) for the gate to keep as context', () => {
    expect(classify(text({ chat: GROUP, fromMe: true }, 'hey all'), 'notify', ctx)).toMatchObject({
      type: 'message',
      fromMe: true,
      isGroup: true,
      senderJid: SELF,
    });
  });
});

describe('classify: notify vs append', () => {
  it('append inside the offline window is handled, marked late', () => {
    const c = classify(text({ chat: ALICE, ts: ts(60) }, 'sent while offline'), 'append', ctx);
    expect(c).toMatchObject({ type: 'message', late: true, text: 'sent while offline' });
  });

  it('append older than the window is history', () => {
    expect(classify(text({ chat: ALICE, ts: ts(301) }, 'old'), 'append', ctx)).toEqual({
      type: 'ignore',
      reason: 'stale',
    });
  });

  // The last outage began 2 h ago (the link was last heard then): its backlog is current.
  it.each([
    ['inside the window, no outage known', 60, undefined, 'message'],
    ['older than the window, no outage known (a restart)', 3_600, undefined, 'ignore'],
    ['older than the window, sent during the outage', 3_600, 7_200, 'message'],
    ['sent just as the outage began (clock slack)', 7_230, 7_200, 'message'],
    ['sent before the outage began', 7_300, 7_200, 'ignore'],
    ['no timestamp', undefined, 7_200, 'ignore'],
  ])('append %s → %s', (_what, age, outageAgo, type) => {
    const msg = text({ chat: ALICE, ts: age === undefined ? 0 : ts(age) }, 'backlog');
    if (age === undefined) msg.messageTimestamp = null;
    const c = classify(msg, 'append', {
      ...ctx,
      ...(outageAgo !== undefined && { outageStart: NOW - outageAgo * 1000 }),
    });
    expect(c.type).toBe(type);
  });

  it('notify is handled whatever its age', () => {
    expect(classify(text({ chat: ALICE, ts: ts(86_400) }, 'slow'), 'notify', ctx).type).toBe('message');
  });
});

describe('classify: content', () => {
  it('takes text from extended, ephemeral and view-once messages', () => {
    const eph = waMessage(
      { chat: ALICE },
      { ephemeralMessage: { message: { conversation: 'disappearing' } } },
    );
    const once = waMessage(
      { chat: ALICE },
      { viewOnceMessageV2: { message: { imageMessage: { caption: 'look', mimetype: 'image/jpeg' } } } },
    );
    expect(classify(eph, 'notify', ctx)).toMatchObject({ text: 'disappearing' });
    expect(classify(once, 'notify', ctx)).toMatchObject({ text: 'look', media: { kind: 'image' } });
    expect(classify(extended({ chat: ALICE }, 'ext', {}), 'notify', ctx)).toMatchObject({ text: 'ext' });
  });

  it('describes media with the sender-declared (untrusted) size and name', () => {
    const doc = waMessage(
      { chat: ALICE },
      { documentMessage: { mimetype: 'application/pdf', fileName: '../../.bashrc', fileLength: 1024 } },
    );
    expect(classify(doc, 'notify', ctx)).toMatchObject({
      text: '',
      media: { kind: 'document', mediaType: 'document', declaredBytes: 1024, fileName: '../../.bashrc' },
    });
    const voice = waMessage(
      { chat: ALICE },
      { audioMessage: { ptt: true, mimetype: 'audio/ogg; codecs=opus' } },
    );
    expect(classify(voice, 'notify', ctx)).toMatchObject({ media: { kind: 'voice', mediaType: 'audio' } });
    const sticker = waMessage({ chat: ALICE }, { stickerMessage: { mimetype: 'image/webp' } });
    expect(classify(sticker, 'notify', ctx)).toMatchObject({ media: { kind: 'sticker' } });
    // A round video note arrives as ptvMessage, not videoMessage.
    const note = waMessage({ chat: ALICE }, { ptvMessage: { mimetype: 'video/mp4', seconds: 5 } });
    expect(classify(note, 'notify', ctx)).toMatchObject({ media: { kind: 'video', mediaType: 'video' } });
  });

  it('takes the caption and file of a document sent with a caption', () => {
    const m = waMessage(
      { chat: ALICE },
      {
        documentWithCaptionMessage: {
          message: {
            documentMessage: { mimetype: 'application/pdf', fileName: 'q3.pdf', caption: 'summarise this' },
          },
        },
      },
    );
    expect(classify(m, 'notify', ctx)).toMatchObject({
      text: 'summarise this',
      media: { kind: 'document', fileName: 'q3.pdf' },
    });
  });

  it('keeps group text that came with a sender key distribution', () => {
    const m = waMessage(
      { chat: GROUP, participant: ALICE },
      { senderKeyDistributionMessage: { groupId: GROUP }, conversation: 'first message' },
    );
    expect(classify(m, 'notify', ctx)).toMatchObject({
      type: 'message',
      text: 'first message',
      isGroup: true,
    });
  });
});

describe('classify: addressing', () => {
  it('a direct message: the sender is the chat, alt JID kept', () => {
    const m = text({ chat: '123456@lid', remoteJidAlt: ALICE }, 'hi');
    expect(classify(m, 'notify', ctx)).toMatchObject({
      chatJid: '123456@lid',
      senderJid: '123456@lid',
      senderAlt: ALICE,
      isGroup: false,
      selfChat: false,
    });
  });

  it('a group message: the sender is the participant', () => {
    const m = text({ chat: GROUP, participant: '777@lid', participantAlt: ALICE }, 'hi');
    expect(classify(m, 'notify', ctx)).toMatchObject({
      senderJid: '777@lid',
      senderAlt: ALICE,
      isGroup: true,
    });
  });

  it.each([SELF, `${OWNER_LID}@lid`])('self-chat is recognised by phone and by LID (%s)', (chat) => {
    const m = text({ chat, fromMe: true }, 'note to self');
    expect(classify(m, 'notify', ctx)).toMatchObject({ selfChat: true, fromMe: true, senderJid: SELF });
  });

  it('collects mentions and the quoted message', () => {
    const m = extended({ chat: GROUP, participant: ALICE }, '@bot hi', {
      mentionedJid: [`${OWNER_LID}@lid`],
      stanzaId: 'Q1',
      participant: SELF,
    });
    expect(classify(m, 'notify', ctx)).toMatchObject({
      mentions: [`${OWNER_LID}@lid`],
      quoted: { id: 'Q1', participant: SELF },
    });
  });
});
