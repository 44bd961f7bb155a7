// A file over the configured size, through the built relay (`agentwire relay` from dist/) and signed
// Twilio webhooks: with media.maxOutboundMb 25, a 26 MB file (26 × 1,048,576 bytes, as the config
// counts a MB) offered by send_file and by a MEDIA: line is refused in one unit, with the number its
// owner configured: "26 MB is over the 25 MB limit", to the agent and in the chat's notice.
// Needs `npm run build` first.
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAIN } from '../e2e/helpers.js';
import { type Rig, startRig } from '../e2e/interact-rig.js';

const TOOL_CLI = join(process.cwd(), 'test/e2e/fixtures/fake-tool-cli.mjs');
const MB = 1_048_576;

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});
beforeAll(() => {
  expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
});

describe('a file over the size limit', () => {
  it('is refused as "26 MB is over the 25 MB limit" by send_file and in the notice for a MEDIA: line', async () => {
    const r = await startRig({
      agent: { command: [process.execPath, TOOL_CLI] },
      twilio: { mediaBaseUrl: 'https://relay.example.test/media' },
      extra: { media: { maxOutboundMb: 25 } },
    });
    rig = r;
    const workspace = r.home.ctx().paths.workspace;
    mkdirSync(workspace, { recursive: true });
    const big = join(workspace, 'big.bin');
    // Sparse: 26 MB long without writing 26 MB.
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 26 * MB);
    closeSync(fd);
    r.start();
    const body = `TOOLS: ${JSON.stringify([
      { name: 'send_file', arguments: { path: big } },
      { say: `MEDIA: ${big}` },
    ])}`;
    expect(await r.sms(body)).toBe(200);
    await r.sent(/^reply: /);
    const reply = r.bodies().find((b) => b.startsWith('reply: ')) ?? '';
    expect(reply).toContain('send_file error: send_file: not sent: 26 MB is over the 25 MB limit');
    await r.sent(/^\(Attachment not sent: .*big\.bin: 26 MB is over the 25 MB limit\.\)$/m);
    expect(r.fake.created.every((m) => m.mediaUrl.length === 0)).toBe(true);
  }, 60_000);
});
