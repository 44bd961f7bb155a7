// One chat's received files and another chat's sandboxed agent, through the real relay (startRelay,
// the Twilio channel against a fake Twilio API, its media downloads, the queue, the cold runner in
// bwrap). Chat B sends a photo; chat A's agent is told B's file's path (as a planted message could)
// and tries to read it. A sandboxed run is shown its own chat's received files only: A reads its
// own photo and not B's, and each chat's files are in a private folder of their own. Needs
// `npm run build` first (the tool helper runs from dist/).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { smsParams, twilioPost } from '../channels/twilio/helpers/harness.js';
import { waitFor } from '../e2e/helpers.js';
import { useTwilioRelay } from '../e2e/twilio-relay.js';
import { bwrapMissing } from '../helpers/bwrap.js';

const PROBE = join(import.meta.dirname, 'fixtures', 'attachment-probe-cli.mjs');
const missing = bwrapMissing();
const A = '+15551234567';
const B = '+15557654321';
const rig = useTwilioRelay();

describe.skipIf(missing)(
  `a sandboxed agent and another chat's attachments${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it("reads its own chat's photo and not another chat's, whose path it was told", async () => {
      const { url, fake, home } = await rig.start({
        config: { agent: { command: [process.execPath, PROBE], sandbox: 'bwrap' } },
        twilio: { allowFrom: [A, B] },
      });
      const photo = (from: string, sid: string, media: string, body: string) =>
        smsParams({
          From: from,
          MessageSid: sid,
          Body: body,
          NumMedia: '1',
          MediaUrl0: fake.mediaUrl(sid, media),
          MediaContentType0: 'image/png',
        });
      const replyTo = (to: string) => fake.created.find((m) => m.to === to)?.body;

      fake.media.set('MEB', { type: 'bytes', data: Buffer.from('SECRET-OF-B'), contentType: 'image/png' });
      expect((await twilioPost(url, photo(B, `SM${'b'.repeat(32)}`, 'MEB', 'mine'))).status).toBe(200);
      expect(await waitFor(() => replyTo(B) !== undefined, 45_000)).toBe(true);
      // B's own run read B's photo: the sandbox shows a chat its own files.
      const bReply = replyTo(B) ?? '';
      expect(bReply).toMatch(/^own \S+: ok SECRET-OF-B$/);
      const bFile = /^own (\S+):/.exec(bReply)?.[1] ?? '';
      expect(readFileSync(bFile, 'utf8')).toBe('SECRET-OF-B');

      fake.media.set('MEA', { type: 'bytes', data: Buffer.from('photo-of-A'), contentType: 'image/png' });
      const sidA = `SM${'a'.repeat(32)}`;
      expect((await twilioPost(url, photo(A, sidA, 'MEA', `peek:${bFile}`))).status).toBe(200);
      expect(await waitFor(() => replyTo(A) !== undefined, 45_000)).toBe(true);
      const aReply = replyTo(A) ?? '';
      expect(aReply).toMatch(/^own \S+: ok photo-of-A$/m);
      expect(aReply).toContain(`peek ${bFile}: denied: ENOENT`);
      expect(aReply).not.toContain('SECRET-OF-B');

      // Each chat's files in a folder of its own, private, under the received-files root.
      const aFile = /^own (\S+):/m.exec(aReply)?.[1] ?? '';
      const root = join(home.dir, 'media', 'inbound');
      expect(dirname(aFile)).not.toBe(dirname(bFile));
      for (const f of [aFile, bFile]) {
        expect(dirname(dirname(f))).toBe(root);
        expect(statSync(dirname(f)).mode & 0o777).toBe(0o700);
        expect(statSync(f).mode & 0o777).toBe(0o600);
      }
      expect(readdirSync(root).sort()).toEqual(
        [dirname(aFile), dirname(bFile)].map((d) => d.slice(root.length + 1)).sort(),
      );
    });
  },
);
