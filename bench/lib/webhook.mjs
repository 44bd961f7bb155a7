// Posting to the relay as Twilio would: a form body signed with the twilio SDK's own signing code,
// over a keep-alive connection pool (Twilio reuses connections too). Resolves with the status and
// the milliseconds until the response was complete.
import { Agent, request } from 'node:http';
import twilio from 'twilio';
import { ACCOUNT, TOKEN } from './fake-twilio.mjs';

const agent = new Agent({ keepAlive: true, maxSockets: 16 });
let seq = 0;

export function smsParams(from, body) {
  seq++;
  return {
    MessageSid: `SM${String(seq).padStart(8, '0')}${process.pid.toString(16).padStart(24, '0')}`,
    AccountSid: ACCOUNT,
    From: from,
    To: '+15550000000',
    Body: body,
    NumMedia: '0',
  };
}

/** A chat number for index i (all on allowFrom '*'). */
export const chat = (i) => `+1555${String(1_000_000 + i).padStart(7, '0')}`;

export function post(url, params) {
  const body = new URLSearchParams(params).toString();
  const signature = twilio.getExpectedTwilioSignature(TOKEN, url, params);
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          'x-twilio-signature': signature,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0, t0 }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function closeAgent() {
  agent.destroy();
}
