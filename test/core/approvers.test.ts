import { describe, expect, it } from 'vitest';
import { isApprover } from '../../src/core/approvers.js';

describe('isApprover', () => {
  it.each<[string, readonly string[] | undefined, string, string, string | undefined, boolean]>([
    ['default: the owner', undefined, 'whatsapp', '+15550001', '+15550001', true],
    ['default: not the owner', undefined, 'whatsapp', '+15550002', '+15550001', false],
    ['default: no owner known, nobody', undefined, 'twilio', '+15550001', undefined, false],
    ['a bare id counts on every channel', ['+15550001'], 'twilio', '+15550001', undefined, true],
    ['a bare id, another sender', ['+15550001'], 'twilio', '+15550009', '+15550009', false],
    ['the list replaces the owner', ['+15550001'], 'whatsapp', '+15550009', '+15550009', false],
    ['a channel entry on its channel', ['telegram:42'], 'telegram', '42', undefined, true],
    ['a channel entry on another channel', ['telegram:42'], 'twilio', '42', undefined, false],
    ['star: anyone who may talk', ['*'], 'twilio', '+15550003', undefined, true],
    ['empty list: nobody', [], 'whatsapp', '+15550001', '+15550001', false],
    ['empty sender id: nobody', ['*'], 'whatsapp', '', undefined, false],
  ])('%s', (_n, entries, channel, sender, owner, want) => {
    expect(isApprover(entries, channel, sender, owner)).toBe(want);
  });

  it.each<[string, readonly string[] | undefined, string, boolean]>([
    ['default: access.owners answer too', undefined, '+15550009', true],
    ['default: an owner of another channel does not', undefined, '+15550008', false],
    ['a list replaces the owners too', ['+15550001'], '+15550009', false],
  ])('%s', (_n, entries, sender, want) => {
    expect(isApprover(entries, 'twilio', sender, '+15550001', ['+15550009', 'telegram:+15550008'])).toBe(
      want,
    );
  });
});
