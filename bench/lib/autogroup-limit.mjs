// The kernel's limit on autogroup changes, and the relay's answer to it (src/runner/nice.ts): a
// process without CAP_SYS_ADMIN gets one change per 100 ms, machine-wide, and EAGAIN otherwise.
// Starts 10 sleepers at once, each in a session of its own like an agent, and lowers their groups
// once with a single write each, then with the relay's `lower` (one write at a time, a refused one
// tried again); prints each sleeper's group nice. Run it as a user that is not root (root is exempt):
//   npm run build && setpriv --reuid=65534 --regid=65534 --clear-groups node bench/lib/autogroup-limit.mjs
// (node and this checkout must be readable by that user). Linux with autogroup only.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { lower } from '../../dist/runner/nice.js';

const N = 10;
const groupNice = (pid) => /nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))?.[1];
for (const how of ['one write each', 'lower']) {
  const kids = Array.from({ length: N }, () => spawn('sleep', ['30'], { detached: true, stdio: 'ignore' }));
  const t0 = performance.now();
  const errors = {};
  if (how === 'lower') await Promise.all(kids.map((k) => lower(k.pid)));
  else
    for (const k of kids) {
      try {
        writeFileSync(`/proc/${k.pid}/autogroup`, '10');
      } catch (e) {
        errors[e.code] = (errors[e.code] ?? 0) + 1;
      }
    }
  const ms = Math.round(performance.now() - t0);
  const nices = kids.map((k) => groupNice(k.pid)).join(',');
  console.log(
    `${how} (uid ${process.getuid()}): group nice ${nices}; errors ${JSON.stringify(errors)}; ${ms} ms`,
  );
  for (const k of kids) k.kill('SIGKILL');
  // The next round's first write must not meet this round's last within the kernel's 100 ms.
  await new Promise((r) => setTimeout(r, 300));
}
