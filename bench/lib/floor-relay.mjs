// The floor under relay-overhead's full path: a relay reduced to what the path cannot do without,
// to show how much of the measured ratio any relay on this machine would pay. Not agentwire: no
// queue, sessions, media, retries or recovery. Run as its own process by bench/floor.bench.mjs:
//   node floor-relay.mjs <mode> <fake CLI> <REST base URL> <account sid> <auth token> <temp dir>
// and prints its webhook port on stdout. Modes:
//   node    node:http in, node:child_process.spawn, node:http out (keep-alive): the least Node can do.
//   stack   the libraries the issues name for this path, used as agentwire uses them: express with the
//           twilio SDK's signature check, node:sqlite (WAL) with the message stored before the 200 and
//           the reply stored before it is sent, execa, and the twilio SDK's messages.create.
// Both run 4 CLIs at a time, a prompt per webhook, like the relay with `whileBusy: followup`.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { execa } from 'execa';
import express from 'express';
import twilio from 'twilio';

const [mode, cli, restUrl, account, token, dir] = process.argv.slice(2);
const stack = mode === 'stack';
const C = 4;
const argv = () => [cli, '-p', '--output-format', 'stream-json', '--verbose', '--session-id', randomUUID()];
const env = { PATH: process.env.PATH ?? '' };

const store = stack ? openStore(join(dir, 'floor.db')) : undefined;

function openStore(file) {
  const db = new DatabaseSync(file);
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
    CREATE TABLE inbox (id INTEGER PRIMARY KEY, sid TEXT UNIQUE, chat TEXT, body TEXT, status TEXT);
    CREATE TABLE outbox (id INTEGER PRIMARY KEY, inbound INTEGER, body TEXT, status TEXT);`);
  return {
    insert: db.prepare(`INSERT INTO inbox (sid, chat, body, status) VALUES (?, ?, ?, 'pending')`),
    running: db.prepare(`UPDATE inbox SET status = 'running' WHERE id = ?`),
    done: db.prepare(`UPDATE inbox SET status = 'done' WHERE id = ?`),
    reply: db.prepare(`INSERT INTO outbox (inbound, body, status) VALUES (?, ?, 'pending')`),
    sent: db.prepare(`UPDATE outbox SET status = 'sent' WHERE id = ?`),
    tx: (fn) => {
      db.exec('BEGIN');
      try {
        const r = fn();
        db.exec('COMMIT');
        return r;
      } catch (e) {
        db.exec('ROLLBACK');
        throw e;
      }
    },
  };
}

class BaseUrlClient extends twilio.RequestClient {
  constructor() {
    super({ autoRetry: false, timeout: 20_000, keepAlive: true });
  }
  request(opts) {
    const u = new URL(opts.uri);
    return super.request({ ...opts, uri: `${restUrl}${u.pathname}${u.search}` });
  }
}
const sdk = stack
  ? twilio(account, token, { accountSid: account, httpClient: new BaseUrlClient() })
  : undefined;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function runCli(prompt) {
  if (stack) {
    const sub = execa(process.execPath, argv(), {
      env,
      extendEnv: false,
      detached: true,
      cleanup: false,
      buffer: false,
      reject: false,
      stdin: 'pipe',
    });
    let out = '';
    sub.stdout.on('data', (d) => {
      out += d;
    });
    sub.stderr.resume();
    sub.nodeChildProcess.stdin.end(prompt);
    return sub.then(() => out);
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv(), { env, detached: true });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('close', () => resolve(out));
    child.stdin.end(prompt);
  });
}

function resultText(out) {
  for (const line of out.split('\n')) {
    if (!line.includes('"result"')) continue;
    const ev = JSON.parse(line);
    if (ev.type === 'result') return ev.result;
  }
  return '';
}

function send(m, text) {
  if (sdk) return sdk.messages.create({ to: m.From, from: m.To, body: text });
  return new Promise((resolve, reject) => {
    const body = new URLSearchParams({ To: m.From, From: m.To, Body: text }).toString();
    const req = request(
      `${restUrl}/2010-04-01/Accounts/${account}/Messages.json`,
      {
        method: 'POST',
        agent,
        auth: `${account}:${token}`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function handle(m) {
  store?.running.run(m.id);
  const text = resultText(await runCli(m.Body));
  const outId = store?.tx(() => {
    store.done.run(m.id);
    return store.reply.run(m.id, text).lastInsertRowid;
  });
  await send(m, text);
  store?.sent.run(outId);
}

const waiting = [];
let running = 0;
function accept(m) {
  if (store) m.id = store.insert.run(m.MessageSid, m.From, m.Body).lastInsertRowid;
  waiting.push(m);
  pump();
}

function pump() {
  while (running < C && waiting.length > 0) {
    running++;
    handle(waiting.shift()).finally(() => {
      running--;
      pump();
    });
  }
}

const ack = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';
let server;
if (stack) {
  const app = express();
  app.post('/sms', express.urlencoded({ extended: false }), (req, res) => {
    const url = `http://127.0.0.1:${server.address().port}/sms`;
    if (!twilio.validateRequest(token, req.header('x-twilio-signature') ?? '', url, req.body)) {
      res.status(403).end();
      return;
    }
    accept({ ...req.body });
    res.type('text/xml').send(ack);
  });
  server = app.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
} else {
  server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      accept(Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
      res.writeHead(200, { 'content-type': 'text/xml' }).end(ack);
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
}
