// Instruments for the hostile-input suite: what the code under test touched on disk and on the network.
// The file-system record is filled by vi.mock factories in the test files (wrapping node:fs and
// node:fs/promises); the connection record wraps net.Socket.prototype.connect, which every client in
// the process goes through (fetch/undici, http, the twilio SDK's axios).
import { realpathSync } from 'node:fs';
import net from 'node:net';
import { dirname, isAbsolute, relative, resolve } from 'node:path';

export interface FsCall {
  fn: string;
  path: string;
}

/** Shared with the vi.mock factories through globalThis (they run before this module's imports). */
export function fsCalls(): FsCall[] {
  const g = globalThis as { __hostileFsCalls?: FsCall[] };
  g.__hostileFsCalls ??= [];
  return g.__hostileFsCalls;
}

/** Wraps the path-taking functions of an fs module so each call is recorded first. */
export function wrapFs<T extends object>(real: T, names: readonly string[]): T {
  const out: Record<string, unknown> = { ...(real as Record<string, unknown>) };
  for (const name of names) {
    const fn = (real as Record<string, unknown>)[name];
    if (typeof fn !== 'function') continue;
    out[name] = (...args: unknown[]) => {
      const p = args[0];
      if (typeof p === 'string' || Buffer.isBuffer(p) || p instanceof URL) {
        fsCalls().push({ fn: name, path: p instanceof URL ? p.pathname : String(p) });
      }
      return (fn as (...a: unknown[]) => unknown).apply(real, args);
    };
  }
  return out as T;
}

/** The path with every symlink resolved, as far as it exists (the rest appended as written). */
export function realOf(path: string): string {
  let p = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(realpathSync(p), ...rest);
    } catch {
      const parent = dirname(p);
      if (parent === p) return resolve(path);
      rest.unshift(p.slice(parent.length + 1));
      p = parent;
    }
  }
}

export function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export interface Connect {
  host: string;
  port: number;
}

/** Records every outbound TCP connection attempt made in this process until `restore`. */
export function recordConnections(): { connects: Connect[]; restore: () => void } {
  const connects: Connect[] = [];
  const proto = net.Socket.prototype as unknown as { connect: (...a: unknown[]) => unknown };
  const original = proto.connect;
  proto.connect = function (this: net.Socket, ...args: unknown[]) {
    const [a, b] = args;
    const first = Array.isArray(a) ? a[0] : a;
    if (first && typeof first === 'object' && 'port' in (first as object)) {
      const o = first as { host?: string; port: number };
      connects.push({ host: o.host ?? 'localhost', port: Number(o.port) });
    } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
      connects.push({ host: typeof b === 'string' ? b : 'localhost', port: Number(first) });
    }
    return original.apply(this, args);
  };
  const restore = () => {
    proto.connect = original;
  };
  return { connects, restore };
}
