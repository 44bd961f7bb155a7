// Warm hosts: where a CLI lets one process serve several sessions (codex app-server threads, ACP
// `session/new` / `session/load` on one connection), chats share a live process and each keeps its
// own session. The pool allocates sessions; a host is the process under them. Only sessions whose
// process would be started the same way share one (the host key: argv, environment, and the
// working folder where the protocol cannot set it per session), at most `cap` a process, so one
// crash or one slow process never takes every chat. claude (stream-json) and pi (rpc) hold one
// session a process: they are never given a registry.
import type { SessionDriver } from './types.js';

/** A session on a host: the pool counts processes by `hostId`; see stopped-turn.ts for `othersBusy`. */
export type HostedDriver = SessionDriver & { hostId(): string; othersBusy(): boolean };

/** What the registry needs of a live (or starting) process. */
export interface SharedHost {
  /** Sessions attached to it, starting ones included. */
  attached(): number;
  /** Still takes new sessions: not broken, not retired after a stuck turn, not closing. */
  accepting(): boolean;
  /** The host's own id, the same for every session on it (the pool counts processes by it). */
  readonly id: string;
}

/** What the policy sees of one host. */
export interface HostView {
  key: string;
  attached: number;
  accepting: boolean;
}

/**
 * The host a new session joins: one started the same way, taking sessions and under the cap, the
 * fullest first (packing sessions is what saves processes); undefined: start a new one.
 */
export function pickHost(hosts: readonly HostView[], key: string, cap: number): number | undefined {
  let best: number | undefined;
  hosts.forEach((h, i) => {
    if (h.key !== key || !h.accepting || h.attached >= cap) return;
    const b = best === undefined ? undefined : hosts[best];
    if (!b || h.attached > b.attached) best = i;
  });
  return best;
}

export interface HostRegistry {
  /** Sessions a process may hold; 1 is a process per chat. */
  readonly cap: number;
  /** A host with room for one more session started as `key`, made by `make` when none has. */
  acquire<H extends SharedHost>(kind: string, key: string, make: () => H): H;
}

export function hostRegistry(cap: number): HostRegistry {
  const hosts: { kind: string; key: string; host: SharedHost }[] = [];
  return {
    cap,
    acquire<H extends SharedHost>(kind: string, key: string, make: () => H): H {
      // A host nobody holds any more, or that takes no one, is forgotten (its last session closed it).
      for (let i = hosts.length - 1; i >= 0; i--) {
        const h = hosts[i]?.host;
        if (h && (h.attached() === 0 || !h.accepting())) hosts.splice(i, 1);
      }
      const full = `${kind}\n${key}`;
      const views = hosts.map((h) => ({
        key: `${h.kind}\n${h.key}`,
        attached: h.host.attached(),
        accepting: h.host.accepting(),
      }));
      const i = pickHost(views, full, cap);
      if (i !== undefined) return hosts[i]?.host as H;
      const host = make();
      hosts.push({ kind, key, host });
      return host;
    },
  };
}

/** The host key of a process: everything it is started with, so two keys match only for twins. */
export function hostKey(argv: readonly string[], env: Record<string, string>, cwd?: string): string {
  const sorted = Object.keys(env)
    .sort()
    .map((k) => [k, env[k]]);
  return JSON.stringify([argv, sorted, cwd ?? null]);
}
