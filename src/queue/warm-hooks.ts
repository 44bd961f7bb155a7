// What the chat's /status shows of the warm pool: the scope's live process, if any, and the CLIs
// that fell back to cold. Undefined when no agent runs warm.
import type { WarmPort } from './ports.js';

export interface WarmView {
  process?: { kind: string; startedAt: number; lastTurnAt: number; busy: boolean; rssBytes?: number };
  fallbacks: { kind: string; reason: string }[];
}

export function warmFor(warm: WarmPort | undefined, scope: string, now: number): WarmView | undefined {
  const status = warm?.status?.(now);
  if (!status) return undefined;
  const p = status.processes.find((x) => x.sessionKey === scope);
  return {
    ...(p && {
      process: {
        kind: p.kind,
        startedAt: p.startedAt,
        lastTurnAt: p.lastTurnAt,
        busy: p.busy,
        ...(p.rssBytes !== undefined && { rssBytes: p.rssBytes }),
      },
    }),
    fallbacks: status.fallbacks,
  };
}
