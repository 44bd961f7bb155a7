// send_message's `to`, as tables: which chat may write to which target (tools.sendTo), never a
// number or a chat key the agent types; and the config check of tools.sendTo against targets.
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import type { ChatKey } from '../../src/core/types.js';
import { decideSendTo } from '../../src/tools/send-to.js';

const targets = {
  team: 'telegram:-100123',
  ops: 'whatsapp:+15550002222',
  me: 'telegram:42',
  anyone: 'twilio:+15550003333',
};
const sendTo = { team: ['telegram:42'], ops: ['me'], anyone: ['*'] };

describe('decideSendTo', () => {
  it.each<[string, string, ChatKey, string]>([
    ['a chat key in the list may write', 'team', 'telegram:42', 'ok telegram:-100123'],
    ['a chat named by a target in the list may write', 'ops', 'telegram:42', 'ok whatsapp:+15550002222'],
    ['"*" lets every chat write', 'anyone', 'whatsapp:+15559999999', 'ok twilio:+15550003333'],
    ['another chat may not', 'team', 'telegram:7', 'this chat may not write to "team"'],
    ['a target with no sendTo entry: nobody may', 'me', 'telegram:42', 'this chat may not write to "me"'],
    ['an unknown name', 'boss', 'telegram:42', '"boss" is not a name in the config\'s targets'],
    ['a phone number', '+15551234567', 'telegram:42', 'never a number or a chat key'],
    ['a chat key', 'telegram:-100123', 'telegram:42', 'never a number or a chat key'],
    ['a name of Object.prototype', 'constructor', 'telegram:42', 'is not a name'],
  ])('%s', (_name, to, chat, want) => {
    const d = decideSendTo({ to, chat, targets, sendTo });
    if (want.startsWith('ok ')) expect(d).toEqual({ ok: true, chat: want.slice(3) });
    else {
      expect(d.ok).toBe(false);
      expect((d as { error: string }).error).toContain(want);
    }
  });
});

describe('config tools.sendTo', () => {
  const parse = (tools: Record<string, unknown>) =>
    configSchema.safeParse({ whatsapp: { enabled: false }, targets, tools });

  it('takes names of targets, with chat keys, target names and "*"', () => {
    const r = parse({ sendTo: { team: ['telegram:42', 'me', '*'] } });
    expect(r.success).toBe(true);
    expect(r.data?.tools.sendTo).toEqual({ team: ['telegram:42', 'me', '*'] });
    expect(parse({}).data?.tools.sendTo).toEqual({});
  });

  it.each([
    [
      'a key that is not a target',
      { boss: ['*'] },
      ['tools', 'sendTo', 'boss'],
      '"boss" is not a name in targets',
    ],
    [
      'a number as a key',
      { '15551234567': ['*'] },
      ['tools', 'sendTo', '15551234567'],
      'is not a name in targets',
    ],
    ['a writer that is neither', { team: ['bob'] }, ['tools', 'sendTo', 'team', 0], '"bob" is neither'],
  ])('refuses %s, at its key', (_n, sendToValue, path, message) => {
    const r = parse({ sendTo: sendToValue });
    expect(r.success).toBe(false);
    const issue = r.error?.issues.find((i) => i.message.includes(message));
    expect(issue?.path).toEqual(path);
  });

  it('refuses a chat key as a key (the shape of a name is checked first)', () => {
    const r = parse({ sendTo: { 'telegram:1': ['*'] } });
    expect(r.success).toBe(false);
    expect(r.error?.issues.some((i) => i.path.slice(0, 2).join('.') === 'tools.sendTo')).toBe(true);
  });
});
