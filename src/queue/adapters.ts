// The real agent layer and media policy behind the queue's ports. Kept apart from the queue so its
// tests can hand it fakes, and so relay, chat and heartbeat build the agent the same way.
import { agentRequest, resolveAgent } from '../agents/resolve.js';
import type { AgentKind } from '../agents/types.js';
import type { Paths } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import { checkMedia } from '../media/policy.js';
import { runCommandReply } from '../runner/run-command-reply.js';
import type { AgentResolution, AgentResolver, MediaPolicy } from './ports.js';

/** Resolves each kind once (config does not change while running); warnings are logged once. */
export function agentResolver(
  config: Config,
  paths: Paths,
  env: NodeJS.ProcessEnv,
  log: Logger,
): AgentResolver {
  const cache = new Map<AgentKind, AgentResolution>();
  return (kind) => {
    const hit = cache.get(kind);
    if (hit) return hit;
    let out: AgentResolution;
    try {
      const r = resolveAgent(config, paths, kind, { env });
      for (const w of r.warnings) log.warn({ agent: kind }, w);
      const { prompt: _p, session: _s, ...base } = agentRequest(r, '', { type: 'new' });
      out = {
        ok: true,
        agent: {
          kind,
          choosesSessionId: r.spec.choosesSessionId,
          thinkingLevels: r.spec.thinkingLevels,
          ...(r.spec.sessionGone ? { sessionGone: r.spec.sessionGone } : {}),
          base,
          run: (request) => runCommandReply(r.spec, request),
        },
      };
    } catch (err) {
      // e.g. a model name that would be read as a flag: say so, do not run.
      out = { ok: false, error: `${kind} cannot run with this config: ${(err as Error).message}` };
    }
    cache.set(kind, out);
    return out;
  };
}

/**
 * `media.*` settings applied to an agent's MEDIA: references; roots default to its working folder.
 * Approved files are copied into `stagingDir` (Paths.stagedMedia) as they are checked.
 */
export function mediaPolicy(config: Config, stagingDir: string): MediaPolicy {
  return async (refs, ctx) => {
    const decisions = await checkMedia(refs, {
      allowedRoots: [...(config.media.allowedRoots ?? [ctx.cwd]), ...(ctx.extraRoots ?? [])],
      baseDir: ctx.cwd,
      maxBytes: Math.floor(config.media.maxOutboundMb * 1024 * 1024),
      allowUrls: config.media.allowUrls,
      stagingDir,
    });
    return decisions.map((d) =>
      d.type === 'approved'
        ? { type: 'approved', item: d.item }
        : { type: 'refused', ref: d.ref, reason: d.reason },
    );
  };
}
