// ask_user on the relay's side: refused in a run that cannot wait (cold: the grant is not
// interactive), otherwise put to the chat through the queue's interactions (a fake here: the queue
// tests cover them), with the run's sender for groups, and "no answer" when none came.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { ChatKey } from '../../src/core/types.js';
import { type Db, openDb } from '../../src/store/sqlite/db.js';
import { storeOver } from '../../src/store/sqlite/open.js';
import { QUEUE_MIGRATIONS } from '../../src/store/sqlite/queue-schema.js';
import { ASK_NEEDS_WARM, ToolError } from '../../src/tools/handlers.js';
import { createToolHost, type ToolHost } from '../../src/tools/host.js';
import { inbound } from '../store/helpers.js';

const CHAT: ChatKey = 'twilio:+15550001111';
let dir: string;
let db: Db;
let host: ToolHost;
let asked: { q: unknown; timeoutMs: number }[];
let answer: string | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aw-ask-'));
  db = openDb(join(dir, 'db.sqlite'), QUEUE_MIGRATIONS);
  const config = configSchema.parse({ whatsapp: { enabled: false }, tools: { askTimeoutMinutes: 3 } });
  host = createToolHost({
    enabled: true,
    limits: config.tools,
    store: storeOver(db),
    mediaPolicy: async () => [],
    textRules: () => ({ limit: 1600 }),
    socket: join(dir, 'relay.sock'),
    entry: { command: process.execPath, args: ['/x/bin.js'] },
    timeZone: 'UTC',
  });
  asked = [];
  answer = 'staging';
  host.bindAsk(async (q, timeoutMs) => {
    asked.push({ q, timeoutMs });
    return answer;
  });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const mint = (interactive: boolean, runKey = 'in:1') =>
  host.tokens.mint({ chat: CHAT, runKey, cwd: dir, interactive }, 60_000);
const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolError);
  return (err as Error).message;
};

describe('ask_user', () => {
  it('in a cold run: refused with a sentence the agent can act on, and nobody is asked', async () => {
    const msg = await refusal(
      host.call({ token: mint(false), tool: 'ask_user', args: { question: 'Deploy?' } }),
    );
    expect(msg).toBe(ASK_NEEDS_WARM);
    expect(msg).toContain('ask in your final answer instead');
    expect(asked).toEqual([]);
  });

  it('in a warm turn: asks the chat with the choices and the run sender, and returns the answer', async () => {
    const stored = storeOver(db).queue;
    await stored.acceptInbound(
      inbound({ channel: 'twilio', chatId: '+15550001111', senderId: '+15550009999', messageId: 'SM1' }),
      {
        now: 1,
        maxPending: 10,
      },
    );
    const r = await host.call({
      token: mint(true),
      tool: 'ask_user',
      args: { question: 'Deploy where?', choices: ['staging', 'prod'] },
    });
    expect(r.text).toBe('staging');
    expect(asked).toEqual([
      {
        q: {
          chat: CHAT,
          runKey: 'in:1',
          question: 'Deploy where?',
          choices: ['staging', 'prod'],
          runSender: '+15550009999',
        },
        timeoutMs: 3 * 60_000,
      },
    ]);
  });

  it('no answer in time: the agent is told so', async () => {
    answer = undefined;
    const r = await host.call({
      token: mint(true, 'schedule:x:1'),
      tool: 'ask_user',
      args: { question: 'Sure?' },
    });
    expect(r.text).toMatch(/^no answer \(nobody replied within 3 minutes/);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.q).not.toHaveProperty('runSender');
  });

  it('bad arguments are an error the agent reads', async () => {
    const token = mint(true);
    expect(await refusal(host.call({ token, tool: 'ask_user', args: {} }))).toMatch(/^ask_user: question: /);
    expect(
      await refusal(
        host.call({
          token,
          tool: 'ask_user',
          args: { question: 'x', choices: Array.from({ length: 10 }, () => 'a') },
        }),
      ),
    ).toMatch(/^ask_user: choices: /);
  });

  it('the askTimeoutMinutes key is validated', () => {
    expect(configSchema.parse({}).tools.askTimeoutMinutes).toBe(10);
    expect(configSchema.safeParse({ tools: { askTimeoutMinutes: 0 } }).success).toBe(false);
    expect(configSchema.parse({}).permissions).toEqual({ timeoutMinutes: 10, settleSeconds: 5 });
    expect(configSchema.safeParse({ permissions: { approvers: ['+1 555'] } }).success).toBe(false);
    expect(configSchema.safeParse({ permissions: { approver: [] } }).success).toBe(false);
  });
});
