// The floor under the burst's acks: the same burst, from the same client, against a bare node:http
// server in a process of its own that reads each body and answers 200 with empty TwiML. What it
// takes is the machine's and the client's part of an ack (connections opened at once, the client's
// own signing and sending), none of it the relay's. Run first in a bench run, it also leaves the
// client's own code warm, so the first relay row is not charged for the measuring client's first
// round of connections (a cold client added about 5 ms to a round of 16 connections opened at once).
import { spawn } from 'node:child_process';

const SERVER = `
const { createServer } = require('node:http');
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end('<?xml version="1.0" encoding="UTF-8"?><Response/>');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/** Runs `drive({ url })` against a fresh bare server and returns what it returns. */
export async function againstBareServer(drive) {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`the bare server exited (${code})`)));
      child.stdout.once('data', (d) => resolve(String(d).trim()));
    });
    return await drive({ url: `http://127.0.0.1:${port}/twilio/inbound` });
  } finally {
    child.kill();
  }
}
