// A store that runs out of disk on demand: the real SQLite database behind a thin wrapper whose write
// statements throw what node:sqlite throws for SQLITE_FULL ("database or disk is full", errcode 13)
// while the disk is "full". Reads keep working, as they do on a real full disk.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Db } from '../../src/store/sqlite/db.js';

const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

export interface FullDisk {
  db: Db;
  /** Every write (or every write whose SQL matches `only`) fails until `free()`. */
  fill(only?: RegExp): void;
  /** Only the next `n` writes (matching `only`, when given) fail, then the disk has room again. */
  failNext(n: number, only?: RegExp): void;
  free(): void;
  /** Writes refused so far. */
  refused: number;
}

export function sqliteFull(): Error {
  return Object.assign(new Error('database or disk is full'), {
    code: 'ERR_SQLITE_ERROR',
    errcode: 13,
    errstr: 'database or disk is full',
  });
}

export function fullDisk(real: DatabaseSync): FullDisk {
  let budget = 0; // writes still to refuse; Infinity while full
  let match: RegExp | undefined;
  const state: FullDisk = {
    db: undefined as unknown as Db,
    fill: (only) => {
      budget = Number.POSITIVE_INFINITY;
      match = only;
    },
    failNext: (n, only) => {
      budget = n;
      match = only;
    },
    free: () => {
      budget = 0;
    },
    refused: 0,
  };
  const check = (sql: string) => {
    if (budget <= 0 || (match && !match.test(sql))) return;
    budget--;
    state.refused++;
    throw sqliteFull();
  };
  const guard = (stmt: StatementSync, sql: string): StatementSync =>
    new Proxy(stmt, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target);
        if (typeof v !== 'function') return v;
        if (prop === 'run' || prop === 'get' || prop === 'all' || prop === 'iterate')
          return (...a: unknown[]) => {
            check(sql);
            return (v as (...x: unknown[]) => unknown).apply(target, a);
          };
        return v.bind(target);
      },
    });
  state.db = new Proxy(real, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (prop === 'prepare')
        return (sql: string) => {
          const stmt = target.prepare(sql);
          return WRITE.test(sql) ? guard(stmt, sql) : stmt;
        };
      if (prop === 'exec')
        return (sql: string) => {
          if (WRITE.test(sql)) check(sql);
          return target.exec(sql);
        };
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as Db;
  return state;
}
