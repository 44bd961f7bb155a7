// The store is where outbound text is redacted: every outbox row (whatever wrote it: a reply, a
// tool's message, a notice, a question's prompt) and every question or approval kept for a chat is
// written with each registered credential masked, so the database file never holds one.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redactItem } from '../../src/core/outbound-redact.js';
import { replyChunks } from '../../src/core/reply.js';
import type { ChatKey, OutboundItem } from '../../src/core/types.js';
import { forgetCredential, registerCredential } from '../../src/log.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { interactionStore } from '../../src/store/sqlite/interactions.js';
import { enqueueOutbound, rowsForKey } from '../../src/store/sqlite/outbox.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';

const SECRET = 'zzSECRETzz-4f1c9a7b2e';
const CHAT: ChatKey = 'twilio:+15550001111';
let dir: string;
let db: Db;
beforeEach(() => {
  registerCredential(SECRET);
  dir = mkdtempSync(join(tmpdir(), 'aw-redact-'));
  db = openDb(join(dir, 'agentwire.db'), QUEUE_MIGRATIONS);
});
afterEach(() => {
  forgetCredential(SECRET);
  if (db.isOpen) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const file = (over: Partial<Extract<OutboundItem, { type: 'file' }>> = {}): OutboundItem => ({
  type: 'file',
  path: `/w/${SECRET}.png`,
  mimeType: 'image/png',
  fileName: 'a.png',
  sizeBytes: 3,
  ...over,
});

describe('redactItem', () => {
  it.each<[string, OutboundItem, OutboundItem]>([
    ['text', { type: 'text', text: `key ${SECRET}!` }, { type: 'text', text: 'key [redacted]!' }],
    ['clean text', { type: 'text', text: 'nothing here' }, { type: 'text', text: 'nothing here' }],
    [
      'file caption and name (the path is not shown, and must stay openable)',
      file({ caption: `see ${SECRET}`, fileName: `${SECRET}.png` }),
      file({ caption: 'see [redacted]', fileName: '[redacted].png' }),
    ],
    ['file without caption', file(), file()],
    [
      'url and caption',
      { type: 'url', url: `https://x.test/?t=${SECRET}`, caption: SECRET },
      { type: 'url', url: 'https://x.test/?t=[redacted]', caption: '[redacted]' },
    ],
  ])('%s', (_name, item, want) => {
    expect(redactItem(item)).toEqual(want);
  });
});

describe('the store masks before it writes', () => {
  it('an outbox row, whoever wrote it', () => {
    enqueueOutbound(db, CHAT, 'k', [{ type: 'text', text: `a ${SECRET}` }, file({ caption: SECRET })], 1);
    expect(rowsForKey(db, 'k').map((r) => r.item)).toEqual([
      { type: 'text', text: 'a [redacted]' },
      file({ caption: '[redacted]' }),
    ]);
  });

  it('a question and its choices', async () => {
    const store = interactionStore(db);
    const i = await store.add(
      {
        chat: CHAT,
        type: 'question',
        runKey: 'in:1',
        asker: 'claude',
        text: `q ${SECRET}`,
        choices: [SECRET, 'b'],
      },
      1,
    );
    expect(i.text).toBe('q [redacted]');
    expect(i.choices).toEqual(['[redacted]', 'b']);
  });

  it('leaves nothing of the secret in the database file', async () => {
    enqueueOutbound(db, CHAT, 'k', [{ type: 'text', text: SECRET }], 1);
    await interactionStore(db).add(
      { chat: CHAT, type: 'approval', runKey: 'in:1', asker: 'claude', text: `run ${SECRET}` },
      1,
    );
    db.close();
    expect(readFileSync(join(dir, 'agentwire.db')).toString('latin1')).not.toContain(SECRET);
  });

  it('replyChunks masks a credential before it cuts, so no chunk holds half of one', () => {
    const text = `${'x'.repeat(95)}${SECRET}${'y'.repeat(50)}`;
    const chunks = replyChunks(text, 100);
    expect(chunks.join('')).toContain('[redacted]');
    for (const c of chunks) expect(c).not.toContain(SECRET.slice(0, 5));
  });
});
