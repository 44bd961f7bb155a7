// The real agent layer and media policy behind the queue's ports. Kept apart from the queue so its
// tests can hand it fakes, and so relay, chat and heartbeat build the agent the same way.
import { isAbsolute, relative, resolve } from 'node:path';
import { placeFor, resolveAgentId } from '../agents/named.js';
import { agentRequest, type AgentSettings as Resolved } from '../agents/resolve.js';
import type { AgentKind } from '../agents/types.js';
import type { Paths } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import type { ChatKey } from '../core/types.js';
import type { WarmPool } from '../drivers/pool-types.js';
import type { Logger } from '../log.js';
import { madeInboundChatDir } from '../media/inbound.js';
import { checkMedia } from '../media/policy.js';
import { type RunDeps, runCommandReply } from '../runner/run-command-reply.js';
import type { AgentResolution, AgentResolver, AgentRun, MediaPolicy, RunContext } from './ports.js';

/**
 * Resolves each agent once (config does not change while running); warnings are logged once. The
 * key is an agent id: a name from `agents.list`, or a CLI kind as before named agents.
 */
export function agentResolver(
  config: Config,
  paths: Paths,
  env: NodeJS.ProcessEnv,
  log: Logger,
  warm?: Pick<WarmPool, 'run' | 'close'>,
  /** Lent to every cold run (the relay's launcher). */
  run: RunDeps = {},
): AgentResolver {
  const cache = new Map<AgentKind, AgentResolution>();
  return (kind) => {
    const hit = cache.get(kind);
    if (hit) return hit;
    let out: AgentResolution;
    try {
      const r = resolveAgentId(config, paths, kind, { env });
      for (const w of r.warnings) log.warn({ agent: kind }, w);
      const { prompt: _p, session: _s, ...base } = agentRequest(r, '', { type: 'new' });
      out = {
        ok: true,
        agent: {
          kind: r.kind,
          choosesSessionId: r.spec.choosesSessionId,
          ...(r.workspace === 'per-chat' && { place: (chat: string) => placeFor(r, chat) }),
          // Only a sandbox needs the folder named: unsandboxed, the prompt's full paths are enough.
          ...(r.sandbox && { chatMedia: (chat: ChatKey) => madeInboundChatDir(paths.inboundMedia, chat) }),
          profiles: r.profiles,
          thinkingLevels: r.spec.thinkingLevels,
          ...(r.spec.sessionGone ? { sessionGone: r.spec.sessionGone } : {}),
          base,
          mode: warm && r.mode === 'warm' ? 'warm' : 'cold',
          run:
            warm && r.mode === 'warm'
              ? warmRun(r, warm, run)
              : (request) => runCommandReply(r.spec, request, run),
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
 * A warm agent's run: the chat's session goes to its session key's live process. A heartbeat's or
 * schedule's `own` or `fresh` session runs cold: such runs come minutes or hours apart, so a live
 * process for each would hold memory for nothing, and the chat's own process (and its session)
 * is left alone. An ACP agent has no cold mode: those runs get a process of their own, closed after.
 */
function warmRun(r: Resolved, warm: Pick<WarmPool, 'run' | 'close'>, run: RunDeps): AgentRun {
  return async (request, ctx?: RunContext) => {
    if (!ctx) return runCommandReply(r.spec, request, run);
    if (ctx.session === 'chat') return warm.run(ctx.sessionKey, r.kind, request);
    if (!r.spec.warmOnly) return runCommandReply(r.spec, request, run);
    const own = `${ctx.session}:${ctx.sessionKey}`;
    // The process is this run's alone, under a pool key of its own; its tool token is minted for
    // the run's session key, which is the one a run may bind.
    const tools = request.warmTools;
    const ownTools = tools && { ...tools, open: () => tools.open(ctx.sessionKey) };
    try {
      return await warm.run(own, r.kind, ownTools ? { ...request, warmTools: ownTools } : request);
    } finally {
      await warm.close(own);
    }
  };
}

const isInside = (dir: string, root: string): boolean => {
  const rel = relative(resolve(root), resolve(dir));
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
};

/**
 * `media.*` settings applied to an agent's MEDIA: references; roots default to its working folder.
 * Approved files are copied into `stagingDir` (Paths.stagedMedia) as they are checked.
 */
export function mediaPolicy(
  config: Config,
  stagingDir: string,
  /** The folders of per-chat agents: a run inside one may send from its own chat's folder only. */
  confinedRoots: readonly string[] = [],
): MediaPolicy {
  return async (refs, ctx) => {
    // media.allowedRoots would let one chat's agent send another chat's files: a per-chat run's
    // roots are its own folder, whatever the config lists.
    const confined = confinedRoots.some((r) => isInside(ctx.cwd, r));
    const roots = confined ? [ctx.cwd] : (config.media.allowedRoots ?? [ctx.cwd]);
    const decisions = await checkMedia(refs, {
      allowedRoots: [...roots, ...(ctx.extraRoots ?? [])],
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
