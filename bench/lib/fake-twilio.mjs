// A fake of Twilio's REST API on 127.0.0.1 for benches (the far edge): it accepts message creates,
// answers like Twilio (201 with a sid) and records when each body arrived. Bare node:http, so the
// bench process spends as little as it can on its side of the measurement.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

export const ACCOUNT = `AC${'b'.repeat(32)}`;
export const TOKEN = 'bench-auth-token-0123456789abcdef';

export async function startFakeTwilio() {
  /** Every created message: its body and performance.now() when it arrived. */
  const received = [];
  /** Waiters for a body containing a marker: [marker, resolve]. */
  const waiters = [];
  const path = `/2010-04-01/Accounts/${ACCOUNT}/Messages.json`;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== path) {
        res.writeHead(404).end();
        return;
      }
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const body = form.get('Body') ?? '';
      const at = performance.now();
      received.push({ body, at });
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (body.includes(waiters[i][0])) waiters.splice(i, 1)[0][1](at);
      }
      const sid = `SM${randomBytes(16).toString('hex')}`;
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ sid, status: 'queued', to: form.get('To'), body, account_sid: ACCOUNT }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    received,
    count: () => received.length,
    /** Resolves with the arrival time of the first later create whose body contains `marker`. */
    waitBody: (marker) => new Promise((resolve) => waiters.push([marker, resolve])),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
