// The far side of test/clis/toolset.test.ts: the user's own tools it configures (a fake MCP server
// and a script, each logging the arguments it was called with), and reading back what they logged
// and what the outbox holds for one message.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../../src/store/sqlite/db.js';

const SERVER = join(process.cwd(), 'test/fixtures/fake-user-mcp.mjs');

/**
 * A user's script (tools.scripts.note, offered as `script__note`): it logs the JSON it got on stdin
 * to NOTE_LOG, as the user's server logs its calls, and answers with the text.
 */
const NOTE = {
  run: [
    process.execPath,
    '-e',
    "let s='';process.stdin.on('data',(d)=>{s+=d}).on('end',()=>{require('node:fs').appendFileSync(process.env.NOTE_LOG,s.trim()+'\\n');process.stdout.write('noted: '+JSON.parse(s).text)})",
  ],
  description: 'Notes the text.',
  schema: {
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  },
  safe: true,
  timeoutSeconds: 30,
};
/** tools.servers.fake (its calls logged to `log`) and tools.scripts.note (to `notes`). */
export const userTools = (log: string, notes: string) => ({
  servers: {
    fake: {
      command: [process.execPath, SERVER],
      env: { FAKE_CALL_LOG: log },
      safe: ['echo'],
      timeoutSeconds: 30,
    },
  },
  scripts: { note: { ...NOTE, env: { NOTE_LOG: notes } } },
});

/** What the user's server (FAKE_CALL_LOG) or script (NOTE_LOG) logged, one entry a call. */
export const calls = (log: string): unknown[] => {
  try {
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
};

/** The tool rows of the outbox that name `ref`, their item parsed. */
export const editRows = (db: Db, ref: string) =>
  (
    db.prepare("SELECT key, chat, item FROM outbox WHERE key LIKE 'tool:%'").all() as {
      key: string;
      chat: string;
      item: string;
    }[]
  )
    .map((r) => ({ key: r.key, chat: r.chat, item: JSON.parse(r.item) as { type: string; ref?: string } }))
    .filter((r) => r.item.ref === ref);
