// The store contract, continued: the WhatsApp channel's credentials, keys, sent messages and chat
// JIDs, over the ports only (run by storeContract in test/store/contract-suite.ts, every engine).
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/open.js';

const NOW = 1_700_000_000_000;

export function whatsappContract(fresh: () => Promise<Store>): void {
  describe('WhatsApp state', () => {
    it('creds keep a logged-out mark across saves; keys are written and deleted all or none', async () => {
      const s = await fresh();
      const auth = s.whatsapp.auth;
      expect(await auth.readCreds()).toBeUndefined();
      await auth.saveCreds('{"me":1}', NOW);
      await auth.markLoggedOut(NOW + 1);
      await auth.saveCreds('{"me":2}', NOW + 2);
      expect(await auth.readCreds()).toEqual({ data: '{"me":2}', loggedOutAt: NOW + 1 });
      await auth.writeKeys([
        { type: 'session', id: 'a', data: '"A"' },
        { type: 'session', id: 'b', data: '"B"' },
        { type: 'pre-key', id: 'a', data: '"P"' },
      ]);
      await auth.writeKeys([
        { type: 'session', id: 'a', data: null },
        { type: 'session', id: 'b', data: '"B2"' },
      ]);
      expect(await auth.readKeys('session', ['a', 'b', 'c'])).toEqual(new Map([['b', '"B2"']]));
      expect(await auth.readKeys('pre-key', ['a'])).toEqual(new Map([['a', '"P"']]));
      await auth.clearKeys();
      expect((await auth.readKeys('pre-key', ['a'])).size).toBe(0);
      expect(await auth.readCreds()).toMatchObject({ data: '{"me":2}' });
    });

    it('a sent id is reserved once, completed with its bytes, pruned by age and count; forget() clears all', async () => {
      const s = await fresh();
      const { sent, chats, auth } = s.whatsapp;
      await sent.reserve('ID1', 'j@s.whatsapp.net', NOW);
      expect(await sent.get('ID1')).toEqual({ message: new Uint8Array(0), at: NOW });
      await sent.complete('ID1', new Uint8Array([0, 1, 254, 255]));
      await sent.reserve('ID1', 'other@s.whatsapp.net', NOW + 9);
      expect(await sent.get('ID1')).toEqual({ message: new Uint8Array([0, 1, 254, 255]), at: NOW });
      for (const [i, id] of ['ID2', 'ID3', 'ID4'].entries()) await sent.reserve(id, 'j', NOW + 10 + i);
      await sent.prune(NOW + 1, 2);
      expect(await sent.get('ID1')).toBeUndefined();
      expect(await sent.get('ID2')).toBeUndefined();
      expect(await sent.get('ID4')).toMatchObject({ at: NOW + 12 });
      await chats.remember('+1555', 'a@lid', NOW);
      await chats.remember('+1555', 'b@lid', NOW + 1);
      expect(await chats.jidFor('+1555')).toBe('b@lid');
      await auth.saveCreds('{}', NOW);
      await auth.writeKeys([{ type: 'session', id: 'a', data: '1' }]);
      await auth.forget();
      expect(await auth.readCreds()).toBeUndefined();
      expect((await auth.readKeys('session', ['a'])).size).toBe(0);
      expect(await sent.get('ID4')).toBeUndefined();
      expect(await chats.jidFor('+1555')).toBeUndefined();
    });
  });
}
