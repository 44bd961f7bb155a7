// Slash commands (discord.slashCommands): the relay's chat commands registered as Discord application
// commands, each with one optional `text` option, and an interaction turned back into the same
// `/name text` a person could have typed, so the queue's command handling is the only one. Pure but
// for the shapes; the channel registers them and answers the interaction.
import {
  type APIInteraction,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  InteractionType,
  type RESTPutAPIApplicationCommandsJSONBody,
} from '@discordjs/core';
import { botCommands } from '../telegram/commands.js';
import type { NormalizedMessage } from './normalize.js';

/** Discord's rule for a command name (lower case). */
const NAME = /^[-_\p{Ll}\p{N}]{1,32}$/u;

/** The same list as Telegram's command menu: the built-ins, then the user's own commands. */
export function slashCommands(prefix: string, section: object): RESTPutAPIApplicationCommandsJSONBody {
  return botCommands(prefix, section)
    .filter((c) => NAME.test(c.command))
    .map((c) => ({
      type: ApplicationCommandType.ChatInput,
      name: c.command,
      description: c.description.slice(0, 100),
      options: [
        {
          type: ApplicationCommandOptionType.String,
          name: 'text',
          description: 'What follows the command',
          required: false,
        },
      ],
    }));
}

/** A slash command's interaction as a message: `/name text`; anything else is not ours to handle. */
export function fromInteraction(i: APIInteraction): NormalizedMessage | undefined {
  if (i.type !== InteractionType.ApplicationCommand || i.data.type !== ApplicationCommandType.ChatInput)
    return undefined;
  const user = i.member?.user ?? i.user;
  const channelId = i.channel?.id ?? i.channel_id;
  if (!user || !channelId || user.bot) return undefined;
  const option = (i.data.options ?? []).find((o) => o.name === 'text');
  const text = option && 'value' in option && typeof option.value === 'string' ? option.value.trim() : '';
  const name = user.global_name ?? user.username;
  return {
    id: i.id,
    channelId,
    ...(i.guild_id && { guildId: i.guild_id }),
    senderId: user.id,
    ...(name && { senderName: name }),
    text: `/${i.data.name}${text ? ` ${text}` : ''}`,
    mentionsBot: false,
    repliesToBot: false,
    attachments: [],
    at: Date.now(),
    slash: true,
  };
}
