// The agent's tools through the relay: a signed Twilio webhook starts a run of a fake claude that is
// a real MCP client (fixtures/fake-tool-cli.mjs), which starts `agentwire mcp` from dist/; its calls
// reach the relay's control socket with the run's token. Checks what the person receives from the
// (fake) Twilio API: the mid-run message exactly once, then the answer, then a task the agent
// scheduled, fired by the relay's scheduler. Needs `npm run build` first.

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { heartbeatService } from '../../src/heartbeat/wiring.js';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import { tasksForChat } from '../../src/store/sqlite/tasks.js';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { waitFor } from './helpers.js';
import { useTwilioRelay } from './twilio-relay.js';

const TOOL_CLI = join(import.meta.dirname, 'fixtures', 'fake-tool-cli.mjs');
const rig = useTwilioRelay();

const tools = (calls: unknown[]) => `TOOLS: ${JSON.stringify(calls)}`;

describe('agent tools through the relay (Twilio)', () => {
  it('a mid-run message arrives once before the answer, and a scheduled task fires from the relay', async () => {
    const { url, bodies, home } = await rig.start({
      config: { agent: { command: [process.execPath, TOOL_CLI] } },
      services: [heartbeatService],
    });
    const at = 'now+5s';
    const body = tools([
      { name: 'send_message', arguments: { text: 'working on it' } },
      {
        name: 'schedule_task',
        arguments: { prompt: tools([{ name: 'send_message', arguments: { text: 'task fired' } }]), at },
      },
    ]);
    expect((await twilioPost(url, smsParams({ Body: body }))).status).toBe(200);
    expect(await waitFor(() => bodies().some((b) => b.startsWith('reply: ')), 45_000)).toBe(true);
    expect(bodies().filter((b) => b === 'working on it')).toHaveLength(1);
    expect(bodies().indexOf('working on it')).toBeLessThan(
      bodies().findIndex((b) => b.startsWith('reply: ')),
    );
    expect(bodies().find((b) => b.startsWith('reply: '))).toMatch(/schedule_task ok: Scheduled task t/);
    // Read beside the relay, as `status` does: the relay's own handle stays inside its store.
    const storeTasks = () => {
      const db = new DatabaseSync(sqliteFile(home.ctx().paths.home), { readOnly: true });
      try {
        return tasksForChat(db as never, 'twilio:+15551234567');
      } finally {
        db.close();
      }
    };
    expect(storeTasks()).toHaveLength(1);

    expect(await waitFor(() => bodies().includes('task fired'), 90_000)).toBe(true);
    expect(await waitFor(() => storeTasks().length === 0, 45_000)).toBe(true);
    expect(bodies().filter((b) => b === 'task fired')).toHaveLength(1);
  }, 180_000);
});
