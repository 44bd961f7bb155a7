// What a channel is to the rest of agentwire: one folder, `src/channels/<name>/`, exporting one
// ChannelPlugin from its `plugin.ts`, listed by one line in `src/channels/registry.ts`.
// Everything the middle needs to know about a channel is asked of its plugin: which chat ids it has,
// which of them a heartbeat or schedule may address, how long a message may be, what `doctor` checks,
// which chat is the default check-in target. Nothing outside the folder names the channel.
//
// The plugin module itself must stay light: it is imported statically (by the registry) in every
// process, `status` and `doctor` included. The channel's library (Baileys, the twilio SDK, grammY)
// is loaded by `create` with a dynamic import, only when the channel is enabled (DESIGN.md rule 9).
import type { Paths } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import type { ChunkRules } from '../core/chunk.js';
import type { Logger } from '../log.js';
import type { Launcher } from '../runner/launcher/client.js';
import type { ChannelStateStore } from '../store/channel-state.js';
import type { StatusFacts } from '../store/status-read.js';
import type { Store } from '../store/store.js';
import type { SingleConsumer } from './single.js';
import type { Channel, ChannelState } from './types.js';

/** What the relay hands a channel it starts. */
export interface ChannelDeps {
  config: Config;
  paths: Paths;
  /** Already a child logger for this channel (`sub: <name>`). */
  log: Logger;
  /**
   * The store's ports, for the channels whose state has a port of its own (WhatsApp credentials,
   * Twilio send records). A new channel should not need it: use `state`.
   */
  store: Store;
  /** This channel's own keys in the generic channel-state table (offsets, dedupe ids, settings). */
  state: ChannelStateStore;
  env: NodeJS.ProcessEnv;
  /**
   * The lease under which the channel runs what only one process may run (WhatsApp's socket,
   * Telegram's long poll, Twilio's poll mode; channels/single.ts). Absent: this process runs it.
   */
  single?: SingleConsumer;
  /**
   * The relay's launcher (`agents.launcher`), absent when off: a program the channel starts (the
   * voice-note transcriber) starts from it, as the agents do.
   */
  launcher?: Launcher;
}

/**
 * How a chat id of the channel may be addressed by a job nobody asked for (a heartbeat or schedule).
 * `direct`: one person. `group`: several people (schedules may post there, heartbeats never do).
 * `broadcast`: a list, status feed or channel whose posts reach every follower: never a target.
 */
export type ChatKind = 'direct' | 'group' | 'broadcast';

/**
 * The rules the one splitter (core/chunk.ts) applies to this channel's replies: the longest text of
 * one message, and whether Markdown code fences are re-opened across messages (not on SMS).
 */
export type TextRules = Required<ChunkRules>;

/** One thing `doctor` checked for this channel. The same shape as doctor's own findings. */
export interface DoctorCheck {
  /** e.g. `telegram`, `whatsapp:link`. */
  check: string;
  status: 'ok' | 'warn' | 'fail';
  /** Never a secret value: say "set" or "missing". */
  message: string;
  /** What to do about it, a command where there is one. */
  fix?: string;
}

export interface DoctorDeps {
  config: Config;
  paths: Paths;
  env: NodeJS.ProcessEnv;
  /** False when the check must not use the network (no `getMe`): tests, or a doctor told to stay offline. */
  online: boolean;
  /** Bounded by doctor; a check that takes longer is a `warn`. */
  timeoutMs: number;
}

/**
 * What a channel can do besides sending, declared by its plugin so the middle (the agent's tools, a
 * progress message) can decide without the running channel, in any process. Pure data; a capability
 * left out is false. Each true one has its method on the `Channel` the plugin creates:
 * - `edit`: `Channel.edit`, replace the text of a message it sent.
 * - `react`: `Channel.react`, put an emoji reaction on a message of the chat.
 * - `delete`: `Channel.delete`, delete a message it sent (a finished status message, `progressEnd`).
 * - `buttons`: `Channel.sendCard`, a message with buttons the person taps; a tap comes back as the
 *   chat's next message. Without it a card is sent as text with a numbered list.
 */
export interface ChannelCapabilities {
  readonly edit?: boolean;
  /**
   * With `edit`: the least time between two edits of one message under the platform's rate limits
   * (a live progress message is edited no faster). Default 1000.
   */
  readonly editIntervalMs?: number;
  readonly react?: boolean;
  readonly delete?: boolean;
  readonly buttons?: boolean;
}

export interface ChannelPlugin {
  /** What the channel can do besides sending (see ChannelCapabilities); absent: nothing more. */
  readonly capabilities?: ChannelCapabilities;
  /**
   * The channel's name: its folder, its config section, and the `<name>:` of its chat keys
   * (`telegram:123456`). Lower-case letters, digits and `-`; never `console` (the terminal chat).
   */
  readonly name: string;
  /** For people: "WhatsApp", "Twilio", "Telegram". */
  readonly displayName: string;
  /**
   * True when, under this config, the channel has a part only one process at a time may run (a
   * socket, a long poll, a poller): it then runs under the lease `channel:<name>` (`ChannelDeps.single`),
   * and the other processes show it as held elsewhere. Webhook modes need none: any process takes a request.
   */
  single?(config: Config): boolean;
  /**
   * True when its sends also need that part (WhatsApp's sends go over the socket): its chats' replies
   * are then sent by the process that holds the lease, not by the chat's.
   */
  readonly sendsThroughSingle?: boolean;
  /** True when the config turns the channel on (e.g. `config.telegram.enabled`). */
  enabled(config: Config): boolean;
  /** Builds the channel; loads its library with a dynamic import (the plugin module stays light). */
  create(deps: ChannelDeps): Promise<Channel>;
  /**
   * Pure: true when `chatId` is a chat id this channel could have produced or can send to (the part
   * after `<name>:` in a chat key). Chat keys typed by a person (config targets, `send --to`, the
   * control socket) are checked with it.
   */
  isChatId(chatId: string): boolean;
  /** Pure: what kind of chat `chatId` (already accepted by `isChatId`) is; see ChatKind. */
  chatKind(chatId: string): ChatKind;
  /** An example chat id for error messages and docs, e.g. `+15551234567` or `123456789`. */
  readonly exampleChatId: string;
  /** What a chat id is, for error messages: "an E.164 number like +15551234567 (or a group JID)". */
  readonly chatIdHelp?: string;
  /** Pure: the splitter's rules for this channel under this config. */
  textRules(config: Config): TextRules;
  /**
   * The chat a heartbeat checks in with when `heartbeat.target` is not set, as a chat id of this
   * channel (WhatsApp: the linked account's self-chat), or undefined. From the running channel's
   * `state` when there is one, else from what the store held when the process read it (`facts`);
   * never the network.
   */
  defaultTarget?(deps: { config: Config; facts?: StatusFacts; state?: ChannelState }): string | undefined;
  /**
   * Secret values of the channel (a bot token, an auth token), from the config or the environment:
   * every log line is scrubbed of them, and `doctor` checks the files that hold them are private.
   */
  secrets?(config: Config, env: NodeJS.ProcessEnv): readonly (string | undefined)[];
  /**
   * Where the channel's secrets sit in what it could log, as pino redact paths: its config fields
   * (`botToken`, `*.botToken`) and request headers (`headers["x-telegram-bot-api-secret-token"]`).
   * Such a field is masked whatever its value, also one `secrets` cannot know (the header of a forged
   * request). The logger is built with every registered channel's paths; src/log.ts names none.
   */
  readonly logRedactPaths?: readonly string[];
  /**
   * What keeps the enabled channel from starting that can be known without the network (a missing
   * or malformed bot token): every config load refuses it at its key, so `config check` never passes
   * a config that `doctor` and the relay would fail. Pure but for reading a token file.
   */
  configProblems?(
    config: Config,
    env: NodeJS.ProcessEnv,
  ): readonly { path: (string | number)[]; message: string }[];
  /** Channel checks for `agentwire doctor` (e.g. Telegram's `getMe`), run only when enabled. */
  doctor?(deps: DoctorDeps): Promise<DoctorCheck[]>;
}

/** What a plugin's name may be: also the prefix of its chat keys, so no `:`. */
export { CHANNEL_NAME as PLUGIN_NAME } from '../core/types.js';
