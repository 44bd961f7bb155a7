import { channelPlugin } from '../channels/registry.js';
import { waitLength } from '../core/interaction-text.js';
import { answeredRef } from '../core/message-ref.js';
import { taskLine } from '../core/task-line.js';
import type { ChatKey } from '../core/types.js';
import { maskId } from '../log.js';
import type { EventStore } from '../store/events.js';
import type { TaskStore } from '../store/tasks.js';
import { type AgentLinkEntry, agentPrompt, decideSend } from './agent-links.js';
import { args, firstIssue, nextSendKey, sentLeft, ToolError, unsend, writerOf } from './call-kit.js';
import { changeMessage, type MessageToolDeps, sendCard } from './message-tools.js';
import {
  askUserInput,
  cancelTaskInput,
  isToolName,
  scheduleTaskInput,
  sendFileInput,
  sendMessageInput,
  sendToAgentInput,
  type ToolAnswer,
  type ToolName,
  taskIdInput,
  toolCallParams,
  updateTaskInput,
} from './schemas.js';
import { decideSendTo } from './send-to.js';
import { checkTask } from './task-policy.js';
import type { ToolGrant, ToolTokens } from './tokens.js';
import { planUpdate } from './update-task.js';
import type { UserTools } from './user-tools.js';

export { ToolError, type Writer } from './call-kit.js';

export interface ToolLimits {
  maxMessagesPerRun: number;
  maxTasksPerChat: number;
  minTaskIntervalMinutes: number;
  /** How long ask_user waits once the chat is shown the question. */
  askTimeoutMinutes: number;
  /** Which chats may send_message to which target (config tools.sendTo). */
  sendTo: Readonly<Record<string, readonly string[]>>;
}

/** ask_user in a run that cannot wait for a person (docs/tools.md). */
export const ASK_NEEDS_WARM =
  'ask_user needs the agent to run warm (agent.mode: warm); ask in your final answer instead.';

/** The message tools' needs (send, change, messages) are MessageToolDeps', declared once there. */
export interface ToolDeps extends Omit<MessageToolDeps, 'limits'> {
  tokens: ToolTokens;
  limits: ToolLimits;
  /** The config's named chats (`targets`): the only places send_message's `to` may name. */
  targets: Readonly<Record<string, string>>;
  tasks: TaskStore;
  /** The stored tasks changed: the scheduler picks them up now, not at its next wake. */
  tasksChanged(): void;
  /** Who wrote the run's last message, when the run answers one (`in:<id>`). */
  sender(runKey: string): Promise<{ name?: string; id?: string; isGroup?: boolean } | undefined>;
  timeZone: string;
  now(): number;
  /**
   * Puts a question to the chat and waits (queue/interactions.ts): the answer's text, or undefined
   * when nobody answered in `timeoutMs` or the run ended. Absent: this process asks nobody.
   */
  ask?(
    q: { chat: ChatKey; runKey: string; question: string; choices?: readonly string[]; runSender?: string },
    timeoutMs: number,
  ): Promise<string | undefined>;
  /** Absent: send_to_agent is not served by this process. */
  agents?: AgentLinks;
  /** The user's own tools (tools.servers, tools.scripts); absent: none. */
  user?: UserTools;
}

/** send_to_agent's config and where its requests are stored (the outside-events table). */
export interface AgentLinks {
  list: readonly AgentLinkEntry[];
  maxHops: number;
  events: Pick<EventStore, 'addAll' | 'get'>;
  /** An ownerChat as written (a chat key or a targets name) to a chat this relay runs. */
  resolveChat(ref: string): { ok: true; chat: ChatKey } | { ok: false; error: string };
  /** A request was stored: the events runner looks now. */
  stored(): void;
}

export async function callTool(deps: ToolDeps, raw: unknown): Promise<ToolAnswer> {
  const p = toolCallParams.safeParse(raw);
  if (!p.success) throw new ToolError(`invalid tool call: ${firstIssue(p.error)}`);
  const issued = p.data.issued === undefined ? undefined : BigInt(p.data.issued);
  const checked = deps.tokens.check(p.data.token, issued);
  if (!checked.ok) throw new ToolError(checked.error);
  if (!isToolName(p.data.tool)) {
    if (!deps.user) throw new ToolError(`unknown tool ${p.data.tool.slice(0, 64)}`);
    const g = checked.grant;
    const r = await deps.user.call(p.data.tool, p.data.args, { policy: g.permissions, approve: g.approve });
    if (!r.ok) throw new ToolError(r.error);
    return { text: r.text };
  }
  return run(deps, checked.grant, p.data.tool, p.data.args);
}

async function run(deps: ToolDeps, g: ToolGrant, tool: ToolName, raw: unknown): Promise<ToolAnswer> {
  switch (tool) {
    case 'send_message': {
      const a = args(sendMessageInput, raw, tool);
      let to = g.chat;
      if (a.to !== undefined) {
        const d = decideSendTo({ to: a.to, chat: g.chat, targets: deps.targets, sendTo: deps.limits.sendTo });
        if (!d.ok) throw new ToolError(`send_message: not sent: ${d.error}`);
        to = d.chat;
      }
      const key = nextSendKey(deps.limits.maxMessagesPerRun, g, 'msg');
      const r = await deps.send(to, key, a.text, [], g.cwd, writerOf(g));
      // "Sent" only once the message is stored (the outbox then sends it exactly once); a store that
      // refused it (a full disk) is the agent's to know, or the text is lost while the run goes on.
      if (r.refused) {
        unsend(g);
        throw new ToolError(`send_message: not sent: ${r.refused}`);
      }
      return { text: `Sent${r.id ? ` as ${r.id}` : ''} (${sentLeft(deps.limits.maxMessagesPerRun, g)}).` };
    }
    case 'send_card':
      return sendCard(deps, g, raw);
    case 'edit_message':
    case 'add_reaction':
      return changeMessage(deps, g, tool, raw);
    case 'send_file': {
      const a = args(sendFileInput, raw, tool);
      const key = nextSendKey(deps.limits.maxMessagesPerRun, g, 'file');
      const r = await deps.send(g.chat, key, a.caption ?? '', [a.path], g.cwd, writerOf(g));
      if (r.refused) {
        unsend(g);
        throw new ToolError(`send_file: not sent: ${r.refused}`);
      }
      return { text: `Sent ${a.path} (${sentLeft(deps.limits.maxMessagesPerRun, g)}).` };
    }
    case 'schedule_task': {
      const a = args(scheduleTaskInput, raw, tool);
      const now = deps.now();
      const c = checkTask(a, deps.limits.minTaskIntervalMinutes * 60_000, now);
      if (!c.ok) throw new ToolError(`schedule_task: ${c.error}`);
      g.ordinal++;
      const added = await deps.tasks.add(
        { chat: g.chat, prompt: a.prompt, ...c.fields },
        `tool:${g.runKey}:task:${g.ordinal}`,
        deps.limits.maxTasksPerChat,
        now,
      );
      if (added.type === 'full')
        throw new ToolError(
          `schedule_task: this chat already has ${added.count} tasks, the most allowed (tools.maxTasksPerChat); cancel one first`,
        );
      deps.tasksChanged();
      return { text: `Scheduled task ${added.task.id}: ${c.timing}; first run ${iso(c.firstAt)}.` };
    }
    case 'list_tasks': {
      args({}, raw, tool);
      const tasks = await deps.tasks.list(g.chat);
      if (tasks.length === 0) return { text: 'No tasks are scheduled in this chat.' };
      return { text: tasks.map(taskLine).join('\n') };
    }
    case 'cancel_task': {
      const a = args(cancelTaskInput, raw, tool);
      if (!(await deps.tasks.cancel(g.chat, a.id)))
        throw new ToolError(`cancel_task: no task ${a.id.slice(0, 40)} in this chat (list_tasks shows them)`);
      deps.tasksChanged();
      return { text: `Cancelled task ${a.id}.` };
    }
    case 'pause_task':
    case 'resume_task': {
      const a = args(taskIdInput, raw, tool);
      const pause = tool === 'pause_task';
      const before = (await deps.tasks.list(g.chat)).find((t) => t.id === a.id);
      if (!before)
        throw new ToolError(`${tool}: no task ${a.id.slice(0, 40)} in this chat (list_tasks shows them)`);
      if (pause === (before.pausedAt !== undefined))
        return { text: `Task ${a.id} is already ${pause ? 'paused' : 'running'}.` };
      await deps.tasks.setPaused(g.chat, a.id, pause ? deps.now() : undefined);
      deps.tasksChanged();
      return { text: `${pause ? 'Paused' : 'Resumed'} task ${a.id}.` };
    }
    case 'update_task': {
      const { id, ...a } = args(updateTaskInput, raw, tool);
      const task = (await deps.tasks.list(g.chat)).find((t) => t.id === id);
      if (!task)
        throw new ToolError(`update_task: no task ${id.slice(0, 40)} in this chat (list_tasks shows them)`);
      const plan = planUpdate(task, a, deps.limits.minTaskIntervalMinutes * 60_000, deps.now());
      if (!plan.ok) throw new ToolError(`update_task: ${plan.error}`);
      const updated = await deps.tasks.update(g.chat, id, plan.change);
      if (!updated)
        throw new ToolError(`update_task: no task ${id.slice(0, 40)} in this chat (list_tasks shows them)`);
      deps.tasksChanged();
      const next = plan.nextAt === undefined ? '' : `; next run ${iso(plan.nextAt)}`;
      return { text: `Updated ${taskLine(updated)}${next}.` };
    }
    case 'ask_user': {
      const a = args(askUserInput, raw, tool);
      // A cold run's CLI cannot be kept waiting on a phone (nor may its process outlive the run).
      if (!g.interactive || !deps.ask) throw new ToolError(ASK_NEEDS_WARM);
      const who = await deps.sender(g.runKey);
      const minutes = deps.limits.askTimeoutMinutes;
      const answer = await deps.ask(
        {
          chat: g.chat,
          runKey: g.runKey,
          question: a.question,
          ...(a.choices && { choices: a.choices }),
          ...(who?.id !== undefined && { runSender: who.id }),
        },
        minutes * 60_000,
      );
      return {
        text:
          answer ??
          `no answer (nobody replied within ${waitLength(minutes * 60_000, 'long')}, or the run was stopped): go on without it, or ask in your final answer.`,
      };
    }
    case 'send_to_agent': {
      const a = args(sendToAgentInput, raw, tool);
      const links = deps.agents;
      if (!links) throw new ToolError('send_to_agent: not available in this agentwire process');
      const hop = await callerHop(links, g.runKey);
      const d = decideSend(links.list, {
        from: g.agent,
        to: a.agent,
        role: g.role,
        hop,
        maxHops: links.maxHops,
      });
      if (!d.ok) throw new ToolError(`send_to_agent: ${d.error}`);
      let chat = g.chat;
      if (d.replyTo === 'owner') {
        const r = links.resolveChat(d.ownerChat ?? '');
        if (!r.ok) throw new ToolError(`send_to_agent: agent "${a.agent}"'s ownerChat: ${r.error}`);
        chat = r.chat;
      }
      // Keyed by the call's place in the run: a run redone after a crash stores the request once.
      g.ordinal++;
      const key = `tool:${g.runKey}:agent:${g.ordinal}`;
      const now = deps.now();
      const added = await links.events
        .addAll(
          [
            {
              key,
              source: `agent:${g.agent ?? 'unknown'}`,
              chat,
              prompt: agentPrompt(g.agent ?? 'unknown', a.text, d.hop, links.maxHops, d.replyTo),
              dueAt: now,
              orderName: key,
              options: JSON.stringify({ agent: a.agent, hop: d.hop }),
            },
          ],
          now,
        )
        .catch(() => undefined);
      if (!added) {
        g.ordinal--;
        throw new ToolError('send_to_agent: not sent: the relay could not store it just now; try again');
      }
      links.stored();
      const where = d.replyTo === 'asker' ? 'to this chat' : `to agent "${a.agent}"'s owner`;
      return {
        text: `Sent to agent "${a.agent}"; it runs as soon as that chat is free, and its answer goes ${where}, not back to you.`,
      };
    }
    case 'chat_info': {
      args({}, raw, tool);
      const [channel, ...rest] = g.chat.split(':');
      const chatId = rest.join(':');
      const who = await deps.sender(g.runKey);
      const info = {
        channel,
        chat: maskId(chatId),
        isGroup: who?.isGroup ?? channelPlugin(channel ?? '')?.chatKind(chatId) === 'group',
        from: who ? (who.name ?? (who.id ? maskId(who.id) : 'unknown')) : 'nobody: a scheduled run',
        // The id edit_message and add_reaction take for the message this run answers.
        ...(answeredRef(g.runKey) && { messageId: answeredRef(g.runKey) }),
        timeZone: deps.timeZone,
        now: iso(deps.now()),
      };
      return { text: JSON.stringify(info) };
    }
  }
}

/** The hop of the calling run: a run of a request from another agent carries it in its stored options. */
async function callerHop(links: AgentLinks, runKey: string): Promise<number> {
  const m = /^event:(\d+)$/.exec(runKey);
  if (!m) return 0;
  const e = await links.events.get(Number(m[1]));
  if (!e) return 0;
  try {
    const hop = (JSON.parse(e.options) as { hop?: unknown }).hop;
    return typeof hop === 'number' && Number.isInteger(hop) && hop > 0 ? hop : 0;
  } catch {
    return 0;
  }
}

const iso = (ms: number): string => new Date(ms).toISOString();
