// `agentwire send --to … --message … [--media FILE…]`: through the running relay's control socket
// (so there is one connection per linked device and the outbox makes it exactly-once), or on its
// own when no relay runs.
import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { channelNames, channelPlugin, enabledChannels } from '../channels/registry.js';
import type { Config } from '../config/schema.js';
import { callControl } from '../control/client.js';
import { SEND_WAIT_MS, type SendAnswer } from '../control/methods.js';
import type { ChannelName } from '../core/types.js';
import { sendWithoutRelay } from '../send-once.js';
import { ExitError, type GlobalOptions, loadContext } from './context.js';

type Target = { channel: ChannelName; to: string };

/**
 * `--to` as a chat key (`<channel>:<chat id>`) or a bare chat id with `--channel` (default: the first
 * enabled channel). The channel's plug-in says what its chat ids look like; a broadcast list, status
 * feed or channel is never a target.
 */
export function parseTarget(to: string, channel: string | undefined, config: Config): Target | string {
  const m = /^([a-z][a-z0-9-]*):(.+)$/.exec(to);
  const prefixed = m && channelPlugin(m[1] as string) ? m : undefined;
  const named = channel ?? prefixed?.[1];
  const address = channel ? to : (prefixed?.[2] ?? to);
  const ch = named ?? enabledChannels(config)[0]?.name;
  if (ch === undefined) return `no channel is enabled: turn on ${channelNames(false)}, or pass --channel`;
  const plugin = channelPlugin(ch);
  if (!plugin) return `--channel must be ${channelNames(false)} (got ${ch})`;
  if (!plugin.isChatId(address) || plugin.chatKind(address) === 'broadcast')
    return `--to must be ${plugin.chatIdHelp ?? `a ${plugin.displayName} chat id like ${plugin.exampleChatId}`}, got ${JSON.stringify(address)}`;
  return { channel: ch, to: address };
}

/** Local files become absolute real paths (checked here, so a typo fails before anything is sent). */
export function resolveMedia(refs: readonly string[]): string[] | string {
  const out: string[] = [];
  for (const ref of refs) {
    if (/^https:\/\//i.test(ref)) {
      out.push(ref);
      continue;
    }
    try {
      const real = realpathSync(resolve(ref));
      if (!statSync(real).isFile()) return `--media ${ref}: not a regular file`;
      out.push(real);
    } catch {
      return `--media ${ref}: no such file`;
    }
  }
  return out;
}

/**
 * What the sender is told once the running relay took the message, and whether that is a failure:
 * sent, refused (a chat that blocked the bot), still on its way after the wait, or queued in its
 * outbox and why (the channel cannot deliver now). "Handed over" never hides a message that waits
 * or one that will never arrive.
 */
export function handedText(to: string, result: unknown): { text: string; failed: boolean } {
  const answer = result as Partial<SendAnswer> | undefined;
  const queued = answer?.queued;
  if (queued)
    return {
      text:
        `Queued in the running relay's outbox for ${to}, not sent yet: ${queued.reason}.\n` +
        'It goes out as soon as the channel can take it (it is kept across restarts).\n',
      failed: false,
    };
  const o = answer?.outcome;
  switch (o?.type) {
    case undefined:
      // A relay from before the outcome was part of the answer.
      return { text: `Handed to the running relay for ${to}.\n`, failed: false };
    case 'sent':
      return { text: `Sent to ${to} by the running relay.\n`, failed: false };
    case 'failed':
      return { text: `Not sent to ${to}: ${o.error}.\n`, failed: true };
    case 'pending':
      return {
        text:
          `Handed to the running relay for ${to}, not delivered yet after ${Math.round(o.waitedMs / 1000)} s; ` +
          'it keeps trying (`agentwire status` shows the outbox).\n',
        failed: false,
      };
  }
}

export function register(program: Command): void {
  program
    .command('send')
    .description('send a message (and files) to a chat, through the running relay when there is one')
    .requiredOption('--to <chat>', 'a chat id, or a chat key such as <channel>:+15551234567')
    .option('-m, --message <text>', 'the text to send', '')
    .option('--media <file...>', 'files (or https URLs) to attach')
    .option('--channel <name>', 'a channel name (default: from --to, else the first enabled channel)')
    .option('--timeout <seconds>', 'without a relay: how long to wait for the connection', '60')
    .action(
      async (opts: { to: string; message: string; media?: string[]; channel?: string; timeout: string }) => {
        const ctx = loadContext(program.opts<GlobalOptions>());
        const target = parseTarget(opts.to, opts.channel, ctx.config);
        if (typeof target === 'string') throw new ExitError(2, target);
        const media = resolveMedia(opts.media ?? []);
        if (typeof media === 'string') throw new ExitError(1, media);
        if (!opts.message.trim() && media.length === 0)
          throw new ExitError(2, 'nothing to send: give --message or --media');
        const params = { ...target, text: opts.message, media, ownerFiles: true };
        // The relay waits up to SEND_WAIT_MS for the first delivery outcome; the call a while longer.
        const call = await callControl(ctx.paths.socket, 'send', params, {
          timeoutMs: SEND_WAIT_MS + 10_000,
        });
        if (call.ok) {
          const told = handedText(`${target.channel}:${target.to}`, call.result);
          if (told.failed) throw new ExitError(1, told.text.trimEnd());
          process.stdout.write(told.text);
          return;
        }
        if (!call.notRunning) throw new ExitError(1, `The relay refused: ${call.error}`);
        const timeout = Number(opts.timeout);
        if (!Number.isFinite(timeout) || timeout <= 0)
          throw new ExitError(2, '--timeout must be a positive number');
        const r = await sendWithoutRelay(ctx, {
          ...target,
          text: opts.message,
          media,
          connectTimeoutMs: timeout * 1000,
        });
        if (!r.ok) throw new ExitError(1, r.error);
        process.stdout.write(`Sent to ${target.channel}:${target.to} (${r.detail}).\n`);
      },
    );
}
