// The built `agentwire relay` as a child process in a temp AGENTWIRE_HOME: Twilio on (webhook on
// 127.0.0.1, REST pointed at a fake on 127.0.0.1), WhatsApp off, the fake claude as the agent.
// Everything it starts is stopped by PID: the relay itself, then any fake CLI it left (from the
// fake's own start log), then the temp folder.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ACCOUNT, TOKEN } from './fake-twilio.mjs';
import { launchersOf } from './proc-group.mjs';
import { procCpuMs, sleep } from './stats.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const MAIN = join(ROOT, 'dist/cli/bin.js');
/** The same build loaded module by module, not from its bundle (scripts/bundle-cli.mjs): a baseline. */
export const UNBUNDLED = join(ROOT, 'bench/lib/unbundled-bin.mjs');
export const FAKE_CLI = join(ROOT, 'test/e2e/fixtures/fake-claude.mjs');

/** A port free right now on 127.0.0.1 (the relay binds it a moment later). */
export async function freePort() {
  const s = createServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

const live = new Set();
process.on('exit', () => {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Any HTTP answer from the webhook (an unsigned POST gets 403) means it accepts requests. */
export function probe(url) {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', agent: false }, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

/**
 * Writes the home and config; `start()` spawns the relay and resolves once the webhook answers.
 * `opts.queue` is merged over the queue section; `opts.fakeLog` makes the fake CLI log its runs;
 * `opts.agent` and `opts.agents` replace the fake CLI and the default warm pool; `opts.logLevel`
 * the relay's log level (its log file is `<dir>/logs/agentwire.log`); `opts.store` its store section.
 */
export async function relayHome(opts) {
  const dir = mkdtempSync(join(tmpdir(), 'aw-bench-relay-'));
  const port = await freePort();
  const fakeLog = opts.fakeLog ? join(dir, 'fake.jsonl') : undefined;
  const config = {
    whatsapp: { enabled: false },
    console: { enabled: opts.console ?? false, host: '127.0.0.1', port: 0 },
    log: { level: opts.logLevel ?? 'warn' },
    queue: { shutdownGraceSeconds: 0, ...opts.queue },
    twilio: {
      enabled: true,
      accountSid: ACCOUNT,
      authToken: TOKEN,
      from: '+15550000000',
      allowFrom: '*',
      apiBaseUrl: opts.apiBaseUrl ?? 'http://127.0.0.1:9',
      webhook: { host: '127.0.0.1', port },
    },
    // Cold: these benches measure the relay's own cost around one CLI process per message (bare
    // spawns are the baseline); the warm bench measures warm mode.
    agent: opts.agent ?? {
      command: [process.execPath, FAKE_CLI],
      mode: 'cold',
      timeoutSeconds: 120,
      env: fakeLog ? { FAKE_LOG: fakeLog } : {},
    },
    // The burst bench runs a real CLI (`opts.agent`) and sizes the warm pool (`opts.agents`).
    ...(opts.agents ? { agents: opts.agents } : {}),
    // The scale-out bench puts several relays on one PostgreSQL database (`opts.store`).
    ...(opts.store ? { store: opts.store } : {}),
  };
  // BENCH_RELAY_CONFIG (a JSON object, merged over the top-level sections) is for experiments, e.g.
  // '{"tools":{"enabled":false}}' to see what a feature costs per message.
  const extra = JSON.parse(process.env.BENCH_RELAY_CONFIG ?? '{}');
  for (const [k, v] of Object.entries(extra)) config[k] = { ...config[k], ...v };
  writeFileSync(join(dir, 'agentwire.json5'), JSON.stringify(config, null, 2));
  const url = `http://127.0.0.1:${port}/twilio/inbound`;
  let child;

  const start = async (timeoutMs = 20_000) => {
    const t0 = performance.now();
    // BENCH_RELAY_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) is for profiling the relay.
    const nodeArgs = (process.env.BENCH_RELAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
    // BENCH_RELAY_WRAP, a command the relay is started through: as root,
    // `setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin --` makes it a relay without
    // CAP_SYS_ADMIN, held to the kernel's one autogroup change per 100 ms as a user's relay is.
    const [wrap, ...wrapArgs] = (process.env.BENCH_RELAY_WRAP ?? '').split(' ').filter(Boolean);
    // `opts.main`: another entry point (the startup bench's same program loaded module by module);
    // BENCH_RELAY_UNBUNDLED=1 starts every relay of a bench that way (an A/B of the bundle).
    const main = opts.main ?? (process.env.BENCH_RELAY_UNBUNDLED === '1' ? UNBUNDLED : MAIN);
    const argv = [...wrapArgs, ...(wrap ? [process.execPath] : []), ...nodeArgs, main, 'relay'];
    child = spawn(wrap ?? process.execPath, argv, {
      // BENCH_NO_COMPILE_CACHE=1: the relay gives its runs no Node compile cache (an A/B of it).
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        AGENTWIRE_HOME: dir,
        ...(process.env.BENCH_NO_COMPILE_CACHE === '1' && { NODE_DISABLE_COMPILE_CACHE: '1' }),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
      // BENCH_RELAY_SESSION=own: the relay in a session of its own (its own autogroup), as a relay
      // started from a terminal or by systemd is, not in the bench's with the fake model and client.
      detached: process.env.BENCH_RELAY_SESSION === 'own',
    });
    live.add(child.pid);
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    let exited = false;
    child.once('exit', () => {
      exited = true;
      live.delete(child.pid);
    });
    while (!(await probe(url))) {
      if (exited) throw new Error(`relay exited before listening: ${stderr.slice(0, 500)}`);
      if (performance.now() - t0 > timeoutMs) throw new Error('relay did not start listening');
      await sleep(2);
    }
    return performance.now() - t0;
  };

  /** Resident set of the relay process, in KiB (Linux /proc). */
  const rssKb = () => {
    const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    return m ? Number(m[1]) : Number.NaN;
  };

  /** CPU time the relay process used so far (user + system), in ms. */
  const cpuMs = () => procCpuMs(child.pid);
  /** CPU of the relay's children it has waited for: the CLI runs. */
  const childCpuMs = () => procCpuMs(child.pid, { children: true });

  /**
   * CPU of the relay's launcher (`agents.launcher`) so far, in ms: 0 without one. Counted apart,
   * since the relay's own figure no longer includes the forks it does for the relay.
   */
  const launcherCpuMs = () => {
    let ms = 0;
    for (const k of launchersOf(child.pid)) {
      try {
        ms += procCpuMs(k);
      } catch {
        // ended meanwhile
      }
    }
    return ms;
  };

  const stop = async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(t);
    }
    // A fake CLI the relay left behind (it should leave none): killed by the PID it logged.
    if (fakeLog && existsSync(fakeLog)) {
      for (const line of readFileSync(fakeLog, 'utf8').split('\n').filter(Boolean)) {
        const { pid } = JSON.parse(line);
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // ended, as it should have
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const events = () =>
    fakeLog && existsSync(fakeLog)
      ? readFileSync(fakeLog, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];

  return {
    dir,
    url,
    port,
    start,
    stop,
    rssKb,
    cpuMs,
    childCpuMs,
    launcherCpuMs,
    events,
    pid: () => child?.pid,
  };
}
