// The leader leases in a status (the scheduler, a channel's one consumer `channel:<name>`): which
// process holds each, by host and pid, and each process's own list. Only live ones: a released lease
// has no holder, and one whose holder died runs out.
import type { ProcessInfo } from '../../store/ownership.js';

/** What the view reads (snapshot.ts StatusSources has these fields). */
interface Sources {
  now: number;
  leases?: { name: string; holder: string; expiresAt: number }[];
  processes?: Pick<ProcessInfo, 'id' | 'host' | 'pid'>[];
}

/** One lease as `status --json` shows it. */
export interface LeaseView {
  name: string;
  host?: string;
  pid?: number;
  until: string;
}

const live = (src: Sources) => (src.leases ?? []).filter((l) => l.expiresAt > src.now);

export function leasesView(src: Sources): { leases?: LeaseView[] } {
  const leases = live(src).map((l) => {
    const p = src.processes?.find((x) => x.id === l.holder);
    return {
      name: l.name,
      ...(p && { host: p.host, pid: p.pid }),
      until: new Date(l.expiresAt).toISOString(),
    };
  });
  return leases.length > 0 ? { leases } : {};
}

/** The leases the process `id` holds, for its line in the processes list. */
export function leadsOf(src: Sources, id: string): { leads?: string[] } {
  const leads = live(src).flatMap((l) => (l.holder === id ? [l.name] : []));
  return leads.length > 0 ? { leads } : {};
}
