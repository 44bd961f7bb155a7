// The warm pool in `agentwire status` (JSON; render.ts draws the text): each live process with its chat (masked),
// CLI, age, idle time and memory, and the CLIs that run cold because their warm start failed.
import type { WarmStatus } from '../../queue/ports.js';
import { cleanText, maskChat, type WarmView } from './snapshot.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function warmView(w: WarmStatus, now: number): WarmView {
  return {
    maxProcesses: w.maxProcesses,
    processes: w.processes.map((p) => ({
      chat: maskChat(p.lane),
      agent: p.kind,
      ...(p.pid !== undefined && { pid: p.pid }),
      startedAt: iso(p.startedAt),
      lastTurnAt: iso(p.lastTurnAt),
      ageSeconds: Math.max(0, Math.round((now - p.startedAt) / 1000)),
      idleSeconds: p.busy ? 0 : Math.max(0, Math.round((now - p.lastTurnAt) / 1000)),
      busy: p.busy,
      ...(p.rssBytes !== undefined && { rssBytes: p.rssBytes }),
    })),
    fallbacks: w.fallbacks.map((f) => ({ agent: f.kind, reason: cleanText(f.reason) })),
  };
}
