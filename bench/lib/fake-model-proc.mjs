// The real-CLI suite's fake model server (test/clis/fake-model/) in a process of its own, so its CPU
// is not counted as the relay's. Prints its URL as one line; ends when its stdin closes.
// Run with `node --import ./bench/lib/ts-hook.mjs`.
import { startFakeModel } from '../../test/clis/fake-model/server.ts';

const server = await startFakeModel();
process.stdout.write(`${server.url}\n`);
process.stdin.resume();
process.stdin.on('end', () => void server.close().then(() => process.exit(0)));
