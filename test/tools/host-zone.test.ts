// The machine's time zone is asked of Intl only when a tool reports it (chat_info), never while the
// relay builds its tools: asking maps ICU's zone data into the process, about 5.5 MiB of the relay's
// resident memory at idle (bench/startup, docs/performance.md).
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTools } from '../../src/relay.js';
import { openDb } from '../../src/store/sqlite/db.js';
import { sqliteFile, storeOver } from '../../src/store/sqlite/open.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { type Home, makeHome } from '../e2e/helpers.js';

let home: Home | undefined;
afterEach(() => {
  vi.restoreAllMocks();
  home?.cleanup();
  home = undefined;
});

describe('the tools of a relay', () => {
  it("ask for the machine's zone on the first chat_info, not when they are built", async () => {
    home = makeHome();
    const ctx = home.ctx();
    const db = openDb(sqliteFile(ctx.paths.home), QUEUE_MIGRATIONS);
    try {
      const machine = Intl.DateTimeFormat().resolvedOptions().timeZone;
      const asked = vi.spyOn(Intl, 'DateTimeFormat');
      const tools = createTools(ctx, storeOver(db), new Map(), join(home.dir, 'relay.sock'), {
        command: process.execPath,
        args: ['/x/bin.js'],
      });
      expect(asked).not.toHaveBeenCalled();
      const token = tools.tokens.mint({ chat: 'twilio:+15550001111', runKey: 'in:1', cwd: home.dir }, 60_000);
      for (let i = 0; i < 2; i++) {
        const info = JSON.parse((await tools.call({ token, tool: 'chat_info', args: {} })).text);
        expect(info.timeZone).toBe(machine);
      }
      // Asked once, then kept.
      expect(asked).toHaveBeenCalledTimes(1);
    } finally {
      db.close();
    }
  });
});
