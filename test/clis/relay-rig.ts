// A relay for the warm real-CLI tests: startRelay itself (store, queue, agent resolver, the warm
// pool, reaper, outbox) on a state folder of its own, with one recording channel in place of
// Twilio, and the real CLI set up offline by cliEnv against one scenario of the fake model server.
// The relay can be stopped and started again on the same state folder (a restart).

import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { inject } from 'vitest';
import type { AgentKind } from '../../src/agents/types.js';
import type { Channel, InboundHandler } from '../../src/channels/types.js';
import { resolvePaths } from '../../src/config/paths.js';
import { configSchema } from '../../src/config/schema.js';
import type { OutboundItem } from '../../src/core/types.js';
import { type RunningRelay, startRelay } from '../../src/relay.js';
import { sqliteFile } from '../../src/store/sqlite/open.js';
import type { ToolsEntry } from '../../src/tools/host.js';
import { memoryLog } from '../queue/helpers.js';
import { launchersOf } from '../support/procs.js';
import { cliEnv } from './cli-env.js';
import { marks, stateDir } from './harness.js';

export interface Sent {
  chatId: string;
  text: string;
}

class RecordingChannel implements Channel {
  readonly textLimit = 1600;
  sent: Sent[] = [];
  onInbound?: InboundHandler;
  private ids = 0;
  /** twilio (no edits, no reactions) or telegram (both, as its plug-in's capabilities say). */
  constructor(readonly name: 'twilio' | 'telegram') {
    if (name === 'telegram') {
      this.edit = async (chatId, providerId, text) => this.note(chatId, `[edit ${providerId}] ${text}`);
      this.react = async (chatId, providerId, emoji) => this.note(chatId, `[react ${providerId}] ${emoji}`);
    }
  }
  edit?: Channel['edit'];
  react?: Channel['react'];
  private async note(chatId: string, text: string) {
    this.sent.push({ chatId, text });
    return { ok: true as const };
  }
  async start(onInbound: InboundHandler) {
    this.onInbound = onInbound;
  }
  async stop() {}
  status() {
    return { type: 'connected' as const, since: 0 };
  }
  async send(chatId: string, item: OutboundItem) {
    this.sent.push({ chatId, text: item.type === 'text' ? item.text : `[${item.type}]` });
    return { ok: true as const, providerId: `p${++this.ids}` };
  }
}

export interface WarmSettings {
  maxProcesses?: number;
  idleMinutes?: number;
  /** Chats a codex or ACP process may serve; 1 here unless a test says (a process per chat). */
  sessionsPerProcess?: number;
}

/** What a rig may add: agentwire's tools (`agentwire mcp` from dist/), a model, its own relay home. */
export interface RigOptions {
  /** The built entry point (`dist/cli/bin.js`): runs get the tools through it. */
  toolsEntry?: ToolsEntry;
  model?: string;
  /** The relay home (default: inside the CLI's temp folder). gemini skips settings under /tmp. */
  dir?: string;
  /** The CLI's own folder (HOME, work), when the test removes it itself (default: a temp folder). */
  state?: string;
  /** agent.permissions (`ask`: the chat's approvers answer the CLI's permission requests). */
  permissions?: 'ask' | 'allow' | 'deny';
  /** Arguments after the CLI's program in agent.command (pi: the extension that asks). */
  args?: string[];
  /** `access.owners`: senders whose runs are the owner's (a member's runs deny permission requests). */
  owners?: string[];
  /** The top-level `permissions` section (approvers, timeoutMinutes). */
  approvals?: { approvers?: string[]; timeoutMinutes?: number };
  /** false: runs without agentwire's tools (`tools.enabled`). */
  tools?: boolean;
  /** agent.sandbox: `bwrap` runs the CLI (and its MCP helper) inside bubblewrap. */
  sandbox?: 'bwrap';
  /** agent.mode (default warm). */
  mode?: 'cold';
  /** The recording channel's name (default twilio); telegram can edit and react. */
  channel?: 'twilio' | 'telegram';
  /**
   * telegram's `progress` (default here `off`: the tests that do not look at the status message
   * count the chat's messages, and a run with a tool call would add one).
   */
  progress?: 'off' | 'status' | 'stream';
  /** The rest of the `tools` section (servers, scripts: the user's own tools). */
  toolsConfig?: Record<string, unknown>;
  /**
   * agent.kind when it is not `kind` (`acp`: the generic ACP agent, run as `kind`'s program with
   * `args`, e.g. `opencode acp`); `kind` still sets up the CLI's offline environment.
   */
  agentKind?: 'acp';
}

export interface RelayRig {
  /** The state folder (relay home) and the CLI's private folder (HOME, work). */
  dir: string;
  /** The agent's working folder (agent.cwd). */
  work: string;
  /** Everything every relay on this folder sent, in order. */
  sent: Sent[];
  start(warm?: WarmSettings): Promise<void>;
  /** Hands one message in and waits until the relay has nothing left to do. */
  say(chatId: string, text: string): Promise<void>;
  /** Hands one message in and returns once it is stored (or was a command). */
  type(chatId: string, text: string): Promise<void>;
  inbox(): { text: string; status: string; note: string | null }[];
  /** The live CLI processes this relay started (the group leaders), by the marker in their environment. */
  processes(): number[];
  relay(): RunningRelay;
  stop(graceMs?: number): Promise<void>;
}

/** A relay home running `kind` warm against `base` (a fake model scenario's URL). */
export function relayRig(kind: AgentKind, base: string, opts: RigOptions = {}): RelayRig {
  const state = opts.state ?? stateDir(kind);
  const dir = opts.dir ?? join(state, 'relay');
  mkdirSync(dir, { recursive: true });
  const marker = `aw-warm-relay-${randomUUID()}`;
  marks(state, marker);
  const bin = join(inject('clisDir'), 'bin');
  const env = { ...cliEnv(kind, state, base, bin), AGENTWIRE_TEST_MARKER: marker };
  const sent: Sent[] = [];
  let running: { relay: RunningRelay; channel: RecordingChannel } | undefined;
  let seq = 0;
  const current = () => {
    if (!running) throw new Error('the relay is not running');
    return running;
  };
  const channelName = opts.channel ?? 'twilio';
  const type = async (chatId: string, text: string) => {
    const r = await current().channel.onInbound?.({
      channel: channelName,
      chatId,
      senderId: chatId,
      messageId: `m${++seq}-${Date.now()}`,
      text,
      media: [],
      isGroup: false,
      mentioned: false,
      at: Date.now(),
    });
    if (r?.type !== 'stored' && r?.type !== 'command') throw new Error(`not taken: ${JSON.stringify(r)}`);
  };
  return {
    dir,
    work: join(state, 'work'),
    sent,
    async start(warm = {}) {
      const raw = {
        whatsapp: { enabled: false },
        ...(channelName === 'telegram' && { telegram: { progress: opts.progress ?? 'off' } }),
        agent: {
          kind: opts.agentKind ?? kind,
          mode: opts.mode ?? 'warm',
          command: [join(bin, kind), ...(opts.args ?? [])],
          cwd: join(state, 'work'),
          timeoutSeconds: 120,
          env,
          ...(opts.model !== undefined && { model: opts.model }),
          ...(opts.permissions !== undefined && { permissions: opts.permissions }),
          ...(opts.sandbox !== undefined && { sandbox: opts.sandbox }),
        },
        ...(opts.approvals !== undefined && { permissions: opts.approvals }),
        ...(opts.owners !== undefined && { access: { owners: opts.owners } }),
        agents: {
          warm: {
            maxProcesses: warm.maxProcesses ?? 4,
            idleMinutes: warm.idleMinutes ?? 15,
            sessionsPerProcess: warm.sessionsPerProcess ?? 1,
            // The relay with each real CLI is tested here, not its start limit (20 s by default):
            // with three files at once on two cores, opencode's first start once took longer in CI
            // and every later turn of its file ran cold, as a real relay would after a slow start.
            startSeconds: 60,
          },
        },
        ...((opts.tools === false || opts.toolsConfig) && {
          tools: { ...opts.toolsConfig, ...(opts.tools === false && { enabled: false }) },
        }),
      };
      writeFileSync(join(dir, 'agentwire.json5'), JSON.stringify(raw, null, 2));
      const channel = new RecordingChannel(channelName);
      channel.sent = sent;
      const ctx = {
        paths: resolvePaths({ AGENTWIRE_HOME: dir }),
        config: configSchema.parse(raw),
        log: memoryLog().log,
        env: {},
      };
      const relay = await startRelay(ctx, {
        services: [],
        channels: [{ name: channelName, enabled: () => true, create: () => channel }],
        ...(opts.toolsEntry && { toolsEntry: opts.toolsEntry }),
      });
      running = { relay, channel };
    },
    type,
    async say(chatId, text) {
      await type(chatId, text);
      await current().relay.queue.whenIdle();
    },
    inbox: () => {
      // Read beside the relay, as `status` does: the relay's own handle stays inside its store.
      const db = new DatabaseSync(sqliteFile(resolvePaths({ AGENTWIRE_HOME: dir }).home), { readOnly: true });
      try {
        return (
          db.prepare('SELECT text, status, note FROM inbox ORDER BY id').all() as {
            text: string;
            status: string;
            note: string | null;
          }[]
        ).map((r) => ({ ...r }));
      } finally {
        db.close();
      }
    },
    processes: () => leaders(marker),
    relay: () => current().relay,
    async stop(graceMs = 10_000) {
      await running?.relay.stop(graceMs);
      running = undefined;
    },
  };
}

/**
 * Live processes this process started whose environment holds the marker: its children, or the
 * children of its launcher (agents.launcher, a child of this process running launcher-process).
 */
function leaders(marker: string): number[] {
  const found: number[] = [];
  const starters = new Set([process.pid, ...launchersOf(process.pid)]);
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (f[0] === 'Z' || !starters.has(Number(f[1]))) continue;
      if (`\0${readFileSync(`/proc/${p}/environ`, 'latin1')}`.includes(`\0AGENTWIRE_TEST_MARKER=${marker}\0`))
        found.push(Number(p));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

/**
 * The first message sent after the first `from` ones that `match`es. Throws after `ms`, or as soon
 * as a message matching `end` (the turn's final reply) came first: the wait is then over.
 */
export async function waitSent(
  rig: Pick<RelayRig, 'sent'>,
  from: number,
  match: (text: string) => boolean,
  ms: number,
  end?: (text: string) => boolean,
): Promise<Sent> {
  const until = Date.now() + ms;
  for (;;) {
    const after = rig.sent.slice(from);
    const found = after.find((s) => match(s.text));
    if (found) return found;
    if (Date.now() > until || (end && after.some((s) => end(s.text))))
      throw new Error(`not sent (waited up to ${ms} ms); sent: ${JSON.stringify(after)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
