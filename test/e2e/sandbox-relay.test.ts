// agent.sandbox: bwrap through the real relay (startRelay, the Twilio channel against a fake
// Twilio API, the queue, the cold runner, the tool host): a sandboxed fake claude that is a real
// MCP client starts `agentwire mcp` inside the sandbox, and its mid-run message and its answer reach
// the person. A sandbox that cannot be made (here: the agent's folder set to the state folder
// itself, which would show the database) stops the run with one sentence to the person and bwrap's
// or the plan's reason in the log; the CLI never runs. Needs `npm run build` first.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { bwrapMissing } from '../helpers/bwrap.js';
import { ROOT, waitFor } from './helpers.js';
import { type TwilioRelay, useTwilioRelay } from './twilio-relay.js';

const TOOL_CLI = join(import.meta.dirname, 'fixtures', 'fake-tool-cli.mjs');
const missing = bwrapMissing();
const rig = useTwilioRelay();

const start = (agent: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<TwilioRelay> =>
  rig.start({ config: { agent, ...extra } });

describe('a sandboxed agent through the relay', () => {
  it.skipIf(missing)(
    `runs inside bwrap and its tool reaches the person${missing ? ` (skipped: ${missing})` : ''}`,
    async () => {
      const { url, bodies, home } = await start({ command: [process.execPath, TOOL_CLI], sandbox: 'bwrap' });
      const body = `TOOLS: ${JSON.stringify([{ name: 'send_message', arguments: { text: 'from inside' } }])}`;
      expect((await twilioPost(url, smsParams({ Body: body }))).status).toBe(200);
      expect(await waitFor(() => bodies().some((b) => b.startsWith('reply: ')), 45_000)).toBe(true);
      expect(bodies().filter((b) => b === 'from inside')).toHaveLength(1);
      expect(bodies().find((b) => b.startsWith('reply: '))).toMatch(/send_message ok/);
      // The run's tools answered on a socket of its own (docs/access.md), removed once it ended.
      const own = join(home.dir, 'tool-sockets');
      expect(existsSync(own)).toBe(true);
      expect(await waitFor(() => readdirSync(own).length === 0, 10_000)).toBe(true);
    },
  );

  it.skipIf(missing)(
    `calls the user's own MCP server, run by the relay on the host, whose env the sandbox never sees${missing ? ` (skipped: ${missing})` : ''}`,
    async () => {
      const secret = 'sandbox-user-secret-8e1f4';
      const server = join(ROOT, 'test/fixtures/fake-user-mcp.mjs');
      const tools = {
        servers: {
          fake: { command: [process.execPath, server], env: { FAKE_SECRET: secret }, safe: ['echo', 'env'] },
        },
      };
      const { url, bodies } = await start(
        { command: [process.execPath, TOOL_CLI], sandbox: 'bwrap' },
        { tools },
      );
      const calls = [
        { name: 'fake__echo', arguments: { text: 'from the box' } },
        { name: 'fake__env', arguments: { name: 'FAKE_SECRET' } },
        { say: 'agent sees [@@env:FAKE_SECRET@@]' },
      ];
      expect((await twilioPost(url, smsParams({ Body: `TOOLS: ${JSON.stringify(calls)}` }))).status).toBe(
        200,
      );
      expect(await waitFor(() => bodies().some((b) => b.startsWith('reply: ')), 45_000)).toBe(true);
      const reply = bodies().find((b) => b.startsWith('reply: ')) ?? '';
      expect(reply).toMatch(/fake__echo ok: echo: from the box \(call 1 of pid \d+\)/);
      // The server has its env (the relay masks the secret on its way to the chat); the agent has none of it.
      expect(reply).toMatch(/fake__env ok: \[redacted\]/);
      expect(reply).toContain('agent sees []');
      expect(reply).not.toContain(secret);
    },
  );

  it('that cannot be sandboxed does not run: one sentence to the person, the reason in the log', async () => {
    // A relative cwd is taken from the config file's folder: the state folder itself.
    const { url, bodies, lines, home } = await start({ sandbox: 'bwrap', cwd: '.' });
    expect((await twilioPost(url, smsParams({ Body: 'hello' }))).status).toBe(200);
    expect(await waitFor(() => bodies().length > 0, 45_000)).toBe(true);
    expect(bodies()).toEqual([
      'Claude Code could not start inside its bwrap sandbox, so it did not run; the relay log says why.',
    ]);
    // The fake CLI never started.
    expect(home.events()).toEqual([]);
    const done = lines.find((l) => l.msg === 'run finished');
    expect(done?.outcome).toBe('sandbox');
    expect(String(done?.detail)).toMatch(
      missing
        ? /bwrap is not installed/
        : /^the sandbox would bind \/\S+aw-e2e-\w+, which holds .*\(the relay's own files\)/,
    );
  });
});
