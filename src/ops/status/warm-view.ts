// The warm pool in `agentwire status` (JSON; render.ts draws the text): its memory budget and use,
// the processes started so far, each live process with its chat (masked), CLI, age, idle time and
// memory, and the CLIs that run cold because their warm start failed.
import type { WarmStatus } from '../../queue/ports.js';
import { cleanText, maskChat, type WarmView } from './snapshot.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function warmView(w: WarmStatus, now: number): WarmView {
  const sampled = w.processes.filter((p) => p.rssBytes !== undefined);
  return {
    maxProcesses: w.maxProcesses,
    ...(w.maxMemoryBytes !== undefined && { maxMemoryBytes: w.maxMemoryBytes }),
    ...(w.maxProcessBytes !== undefined && { maxProcessBytes: w.maxProcessBytes }),
    ...(sampled.length > 0 && { usedBytes: sampled.reduce((n, p) => n + (p.rssBytes ?? 0), 0) }),
    ...(w.starts !== undefined && { starts: w.starts }),
    processes: w.processes.map((p) => ({
      chat: maskChat(p.sessionKey),
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
