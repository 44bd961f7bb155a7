// send_message cuts its text by the same rules as a reply, channel by channel: the channel plug-in's
// textRules, through the relay's own createTools. Before, the tools were given a bare length, so a
// code block sent by the tool on SMS had its fences closed and re-opened in every part (SMS shows
// Markdown as plain text: the fences were just extra characters), unlike the same text as a reply.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { channelPlugin } from '../../src/channels/registry.js';
import { channelRules } from '../../src/core/chunk.js';
import { textItems } from '../../src/core/reply.js';
import type { ChatKey } from '../../src/core/types.js';
import { createTools } from '../../src/relay.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { rowsForKey } from '../../src/store/sqlite/outbox.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { type Home, makeHome } from '../e2e/helpers.js';

let home: Home | undefined;
let db: Db | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  home?.cleanup();
  home = undefined;
});

const code = Array.from({ length: 120 }, (_, i) => `console.log("line ${i} of the build output");`).join(
  '\n',
);
const TEXT = `The build failed. Here is the log:\n\n\`\`\`js\n${code}\n\`\`\`\n\nI will retry in an hour.`;
const fences = (parts: string[]) =>
  parts
    .join('\n')
    .split('\n')
    .filter((l) => l.startsWith('```')).length;

describe('send_message text, cut as a reply is', () => {
  it.each<[string, ChatKey, { parts: number; fences: number }]>([
    // SMS: 1,600 characters, no fences: only the two the agent wrote.
    ['twilio SMS', 'twilio:+15550001111', { parts: 4, fences: 2 }],
    // WhatsApp renders fences: a block cut in two is closed and re-opened.
    ['whatsapp', 'whatsapp:+15550001111', { parts: 2, fences: 4 }],
    ['telegram', 'telegram:42', { parts: 2, fences: 4 }],
  ])('%s', async (_name, chat, want) => {
    home = makeHome({ twilio: { enabled: true }, telegram: { enabled: true } });
    const ctx = home.ctx();
    db = openDb(sqliteFile(ctx.paths.home), QUEUE_MIGRATIONS);
    const tools = createTools(ctx, storeOver(db), new Map(), join(home.dir, 'relay.sock'), {
      command: process.execPath,
      args: ['/x/bin.js'],
    });
    const token = tools.tokens.mint({ chat, runKey: 'in:1', cwd: home.dir }, 60_000);
    await tools.call({ token, tool: 'send_message', args: { text: TEXT } });
    const sent = rowsForKey(db, 'tool:in:1:msg:1').map((r) => (r.item.type === 'text' ? r.item.text : ''));
    // Exactly the reply's cut under the channel plug-in's rules.
    const channel = chat.slice(0, chat.indexOf(':'));
    const rules = channelRules(undefined, channelPlugin(channel)?.textRules(ctx.config));
    expect(sent).toEqual(textItems(TEXT, rules).map((i) => (i.type === 'text' ? i.text : '')));
    expect({ parts: sent.length, fences: fences(sent) }).toEqual(want);
  });
});
