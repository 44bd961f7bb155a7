// A throwaway PostgreSQL cluster for the scale-out bench (the test suites' own, test/support/postgres.ts),
// with every statement logged, so the round trips are counted on the server: `log_statement = all`
// writes one line per query a client sends (a simple-protocol string with several statements is one
// line, an extended-protocol query one `execute` line), prefixed with the client's application_name
// (the relay's pool says `agentwire`). The bench marks the start and end of a measured window with a
// statement of its own and counts the relay's lines between the two marks.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { procCpuMs, sleep } from './stats.mjs';

/** Why the bench cannot start PostgreSQL here, or undefined (initdb is there). */
export async function noPostgres() {
  const { pgBinDir } = await import('../../test/support/postgres.ts');
  try {
    const bin = pgBinDir();
    return existsSync(join(bin, 'initdb')) ? undefined : `no initdb in ${bin}`;
  } catch (err) {
    return err.message;
  }
}

export async function startCluster() {
  const { startPostgres } = await import('../../test/support/postgres.ts');
  const cluster = await startPostgres();
  const dir = decodeURIComponent(new URL(cluster.url).hostname);
  const logFile = join(dir, 'server.log');
  const admin = async (fn, database = 'postgres') => {
    const u = new URL(cluster.url);
    u.pathname = `/${database}`;
    const c = new pg.Client({ connectionString: u.toString(), application_name: 'bench' });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  await admin(async (c) => {
    await c.query(`ALTER SYSTEM SET log_statement = 'all'`);
    await c.query(`ALTER SYSTEM SET log_line_prefix = '%a|'`);
    await c.query('SELECT pg_reload_conf()');
  });
  // The reload reaches new sessions once the postmaster has read the file again.
  for (let i = 0; ; i++) {
    const prefix = await admin(async (c) => (await c.query('SHOW log_line_prefix')).rows[0].log_line_prefix);
    if (prefix === '%a|') break;
    if (i > 200) throw new Error('log_line_prefix did not take effect');
    await sleep(10);
  }
  const postmaster = () => Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  let seq = 0;
  return {
    /** A new empty database; its URL. */
    database: async (name) => {
      await admin((c) => c.query(`CREATE DATABASE ${name}`));
      const u = new URL(cluster.url);
      u.pathname = `/${name}`;
      return u.toString();
    },
    /** Writes a mark into the server's log; its name, for `count`. */
    mark: async (what) => {
      const name = `mark-${what}-${++seq}`;
      await admin((c) => c.query(`SELECT '${name}'`));
      return name;
    },
    /**
     * The statements clients named `app` sent between two marks (each one round trip), and a
     * breakdown by kind: a function's name, `BEGIN+locks`, or the statement's first words.
     */
    count: (from, to, app = 'agentwire') => {
      const lines = readFileSync(logFile, 'utf8').split('\n');
      const start = lines.findIndex((l) => l.includes(`'${from}'`));
      const end = lines.findIndex((l, i) => i > start && l.includes(`'${to}'`));
      if (start < 0 || end < 0) throw new Error(`marks ${from} / ${to} not found in the server log`);
      const kinds = new Map();
      let n = 0;
      const head = new RegExp(`^${app}\\|LOG:  (?:statement|execute [^:]*): (.*)$`);
      // A statement over several lines goes on in lines without the prefix.
      const tagged = /^[^|\s]*\|[A-Z]+: {2}/;
      const window = lines.slice(start + 1, end);
      for (let i = 0; i < window.length; i++) {
        const m = head.exec(window[i]);
        if (!m) continue;
        n++;
        let sql = m[1];
        for (let j = i + 1; j < window.length && !tagged.test(window[j]); j++) sql += ` ${window[j]}`;
        const kind = kindOf(sql);
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      return { n, kinds: [...kinds.entries()].sort((a, b) => b[1] - a[1]) };
    },
    /** CPU the whole cluster has used so far, in ms: the postmaster, its live children and those reaped. */
    cpuMs: () => {
      const pm = postmaster();
      let total = procCpuMs(pm) + procCpuMs(pm, { children: true });
      for (const p of readdirSync('/proc')) {
        if (!/^\d+$/.test(p)) continue;
        try {
          const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
          const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          if (ppid === pm) total += procCpuMs(p);
        } catch {
          // exited between the listing and the read
        }
      }
      return total;
    },
    stop: () => cluster.stop(),
  };
}

/** A short name for a logged statement (the breakdown of where the round trips go). */
export function kindOf(sql) {
  const fn = /\b(aw_[a-z_]+)\(/.exec(sql);
  if (fn) return fn[1];
  if (/^BEGIN/i.test(sql)) return /advisory/.test(sql) ? 'BEGIN+locks' : 'BEGIN';
  const words = sql.replace(/\s+/g, ' ').trim().split(' ');
  const table = /\b(?:FROM|INTO|UPDATE)\s+([a-z_]+)/i.exec(sql)?.[1];
  return table ? `${words[0]} ${table}` : words.slice(0, 3).join(' ');
}
