// pi: `pi --mode json -p --session <file>` with the prompt on stdin. pi's own parser rejects `--`
// and reads `@name` arguments as files to attach, so a chat message never goes on the command
// line. The relay chooses the session file (pi creates it, and its folders, on first use), so the
// file path is the session id agentwire keeps, and a resume can check that the file still exists. `--mode json` exits 0 even on API errors: the last
// assistant `message_end` (stopReason "error" + errorMessage) decides.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { ProgressStep } from '../core/progress-event.js';
import {
  addTexts,
  arr,
  assertSafeId,
  CONTINUED,
  classifyError,
  errorResult,
  type Json,
  jsonLine,
  message,
  NONE,
  notSignedInMessage,
  num,
  obj,
  okResult,
  type Parsed,
  type Reducer,
  safeArg,
  str,
  usageOf,
} from './common.js';
import { wordsTest } from './line-forms.js';
import { detailOf, NO_STEPS, progressLines, step } from './progress-map.js';
import { TOOL_EXTENSION } from './tool-server.js';
import type {
  AgentSpec,
  BuildContext,
  Invocation,
  RunOutput,
  StreamEvent,
  ToolServer,
  ToolWiring,
} from './types.js';

const NAME = 'pi';
// Where the session goes on the command line (AgentSpec.session).
const SESSION = { newFlag: '--session', resumeFlag: '--session' } as const satisfies AgentSpec['session'];

const THINKING = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

function sessionFile(ctx: BuildContext): string {
  const id = ctx.session.id;
  if (id && isAbsolute(id)) return id;
  // pi also finds a session by UUID (or prefix) in its own folder for this cwd.
  if (id && ctx.session.type === 'resume') return assertSafeId(id, 'session id');
  return join(ctx.stateDir, 'pi-sessions', `${randomUUID()}.jsonl`);
}

/**
 * A stored session file that is gone (deleted, or the state folder moved) would make pi start an
 * empty one under the same name and answer as if nothing happened. Only a relay-chosen path can be
 * checked; a UUID is looked up by pi in its own folder.
 */
function sessionGone(id: string): boolean {
  return isAbsolute(id) && !existsSync(id);
}

function build(ctx: BuildContext): Invocation {
  const file = sessionFile(ctx);
  // The file is the session either way: pi creates it when new and continues it when not.
  const flag = ctx.session.type === 'resume' ? SESSION.resumeFlag : SESSION.newFlag;
  const argv = [...ctx.command, '--mode', 'json', '-p', flag, file];
  if (ctx.model) argv.push('--model', safeArg(ctx.model, 'model'));
  if (ctx.thinking) argv.push('--thinking', safeArg(ctx.thinking, 'thinking level'));
  // A leading newline keeps a system text that starts with "-" from reading as a flag.
  if (ctx.systemText) {
    argv.push(
      '--append-system-prompt',
      ctx.systemText.startsWith('-') ? `\n${ctx.systemText}` : ctx.systemText,
    );
  }
  return { argv, stdin: ctx.prompt, sessionId: file };
}

// Lines parse never needs: streaming updates repeat the whole message so far (quadratic in the
// reply's length), and the turn/agent summaries repeat every message and tool output again.
const NOISE = [
  'message_update',
  'message_start',
  'tool_execution_update',
  'tool_execution_end',
  'turn_end',
  'agent_end',
].map((t) => `{"type":"${t}"`);
const keepLine = (line: string): boolean => !NOISE.some((p) => line.startsWith(p));

function assistantEnd(ev: Json): Json | undefined {
  if (ev.type !== 'message_end') return undefined;
  const m = obj(ev.message);
  return m?.role === 'assistant' ? m : undefined;
}

function textOf(m: Json): string {
  return arr(m.content)
    .map(obj)
    .filter((c) => c?.type === 'text')
    .map((c) => str(c?.text) ?? '')
    .join('');
}

const MESSAGE_END = wordsTest('message_end');

// A message that stopped for tool use is, by its own account, not the final one.
function streamEvent(m: Json): StreamEvent[] {
  if (m.stopReason === 'error' || m.stopReason === 'aborted') return NONE;
  return m.stopReason === 'toolUse' ? [...message(textOf(m)), ...CONTINUED] : message(textOf(m));
}

/** No state either. Lines keepLine drops are not read at all, whatever they hold. */
export function reducer(): Reducer {
  const event = (ev: Json): StreamEvent[] => {
    const m = assistantEnd(ev);
    return m ? streamEvent(m) : NONE;
  };
  return {
    event,
    line: (line) => {
      if (!keepLine(line) || !MESSAGE_END.test(line)) return NONE;
      const ev = jsonLine(line);
      return ev ? event(ev) : NONE;
    },
  };
}

const messageStream = (): ((line: string) => StreamEvent[]) => reducer().line;

function parse(out: RunOutput): Parsed {
  const messages: string[] = [];
  let sessionId: string | undefined;
  let last: Json | undefined;
  let input = 0;
  let output = 0;
  let cost = 0;
  for (const line of out.stdoutLines) {
    const ev = jsonLine(line);
    if (!ev) continue;
    if (ev.type === 'session') sessionId = str(ev.id) ?? sessionId;
    const m = assistantEnd(ev);
    if (m) {
      last = m;
      const u = obj(m.usage);
      input += num(u?.input) ?? 0;
      output += num(u?.output) ?? 0;
      cost += num(obj(u?.cost)?.total) ?? 0;
      // The stream skips what keepLine drops, by the line's first bytes; so does this.
      if (keepLine(line)) addTexts(messages, streamEvent(m));
    }
  }
  const base = { sessionId, exitCode: out.exitCode, signal: out.signal };
  if (last && (last.stopReason === 'error' || last.stopReason === 'aborted')) {
    const text = str(last.errorMessage) ?? 'the model call failed';
    return errorResult(NAME, classifyError(text) ?? 'exit', { ...base, detail: text });
  }
  if (out.exitCode !== 0) {
    const text = [out.stderr, out.stdoutLines.filter((l) => !jsonLine(l)).join('\n')].join('\n').trim();
    // No login and no key for its model: exit 1 and this line on stderr within a second
    // (fixtures/agents/pi/no-credentials.json), where the owner needs to be told what to do.
    if (/^no api key found\b/im.test(out.stderr))
      return errorResult(NAME, 'auth', {
        ...base,
        detail: text,
        message: notSignedInMessage(NAME, "run `pi` and sign in with /login (or set its provider's API key)"),
      });
    return errorResult(NAME, classifyError(text) ?? 'exit', { ...base, detail: text });
  }
  if (last) {
    return okResult(messages, {
      sessionId,
      usage: usageOf(input, output, cost || undefined),
      truncated: out.truncated,
    });
  }
  return errorResult(NAME, 'unparseable', base);
}

/**
 * agentwire's tools as a pi extension (src/cli/tool-extension.ts): pi has no MCP. The file is
 * `server.toolExtension` where the relay names one (its bundle, where the build made one), else tsc's
 * module beside the entry point the server runs (`args[0]`: …/dist/cli/bin.js). Loaded for this run
 * only by `--extension`; nothing is written to pi's settings. It runs inside pi, so the run's token
 * and socket reach it through pi's own environment (withTools puts server.env there), never argv.
 */
function tools(server: ToolServer): ToolWiring {
  const entry = server.args[0];
  const file = server.toolExtension ?? (entry && join(dirname(entry), TOOL_EXTENSION));
  return file ? { args: ['--extension', file] } : { args: [] };
}

/** pi --mode json (cold) and --mode rpc (warm): the same agent events. */
export function piProgress(ev: Json): ProgressStep[] {
  const id = str(ev.toolCallId);
  switch (ev.type) {
    case 'tool_execution_start':
      return step(str(ev.toolName), id, detailOf(ev.args));
    case 'tool_execution_end':
      return [{ type: 'tool_done', ...(id !== undefined && { id }), ok: ev.isError !== true }];
    case 'message_update': {
      const e = obj(ev.assistantMessageEvent);
      if (e?.type === 'thinking_start') return [{ type: 'thinking' }];
      const delta = e?.type === 'text_delta' ? str(e.delta) : undefined;
      return delta ? [{ type: 'text', delta }] : NO_STEPS;
    }
    default:
      return NO_STEPS;
  }
}

export const piSpec: AgentSpec = {
  kind: 'pi',
  displayName: NAME,
  program: 'pi',
  install: { npm: '@mariozechner/pi-coding-agent', hint: 'npm install -g @mariozechner/pi-coding-agent' },
  versionArgs: ['--version'],
  docsUrl: 'https://github.com/badlogic/pi-mono',
  session: SESSION,
  nestedEnv: [],
  choosesSessionId: 'relay-file',
  // PI_CODING_AGENT_DIR replaces ~/.pi/agent (settings, auth, models); sessions are in stateDir already.
  homeEnv: (dir) => ({ PI_CODING_AGENT_DIR: dir }),
  // Its settings and login: bound read-write by the bwrap sandbox.
  state: (env, home) => ({ dirs: [env.PI_CODING_AGENT_DIR || join(home, '.pi')], files: [], readFiles: [] }),
  passEnv: [
    'PI_CODING_AGENT_DIR',
    'PI_OFFLINE',
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'OPENROUTER_API_KEY',
    'GROQ_API_KEY',
    'XAI_API_KEY',
    'MISTRAL_API_KEY',
    'HTTPS_PROXY',
    'HTTP_PROXY',
    'NO_PROXY',
  ],
  thinkingLevels: THINKING,
  sessionGone,
  build,
  tools,
  messageStream,
  progressStream: progressLines(piProgress),
  keepLine,
  parse,
};
