// Codex: `codex exec --json --skip-git-repo-check … -- -`, resumed with
// `codex exec resume --json --skip-git-repo-check … -- <thread_id> -`; the `-` prompt is read from
// stdin (verbatim, no argv size limit, never a flag). Codex chooses the id
// (`thread.started.thread_id`). The reply is the last `agent_message` item; `reasoning` items are
// never text. `{"type":"error"}` lines also appear while it retries, so only `turn.failed` (or a
// non-zero exit) is a failure.
import { join } from 'node:path';
import type { ProgressStep } from '../core/progress-event.js';
import {
  addTexts,
  assertSafeId,
  CONTINUED,
  classifyError,
  errorResult,
  type Json,
  jsonLine,
  message,
  NONE,
  num,
  obj,
  okResult,
  type Parsed,
  type Reducer,
  safeArg,
  str,
  usageOf,
} from './common.js';
import {
  lineForm,
  NUMBER,
  numberValue as n,
  readForm,
  STRING,
  stringValue as s,
  wordsTest,
} from './line-forms.js';
import { detailOf, NO_STEPS, progressLines, step, unwrapShell } from './progress-map.js';
import { TOOL_SERVER_NAME, TOOLS_SOCKET_ENV, TOOLS_TIMEOUT_ENV, TOOLS_TOKEN_ENV } from './tool-server.js';
import type {
  AgentSpec,
  BuildContext,
  Invocation,
  RunOutput,
  StreamEvent,
  ToolServer,
  ToolWiring,
  Trouble,
} from './types.js';

const NAME = 'Codex';
// Where the session goes on the command line (AgentSpec.session).
// None: a resume is the `exec resume` subcommand with the id as a positional argument (see build).
const SESSION: AgentSpec['session'] = {};

const THINKING = ['minimal', 'low', 'medium', 'high', 'xhigh'] as const;

/** A TOML value for `-c key=value` (JSON strings and arrays of strings are valid TOML). */
const toml = (v: string | readonly string[]): string => JSON.stringify(v);

function build(ctx: BuildContext): Invocation {
  const resume = ctx.session.type === 'resume';
  const argv = [...ctx.command, 'exec', ...(resume ? ['resume'] : []), '--json', '--skip-git-repo-check'];
  if (ctx.model) argv.push('--model', safeArg(ctx.model, 'model'));
  if (ctx.thinking)
    argv.push('-c', `model_reasoning_effort=${toml(safeArg(ctx.thinking, 'thinking level'))}`);
  if (ctx.systemText) argv.push('-c', `developer_instructions=${toml(ctx.systemText)}`);
  // `-c`, not `--sandbox`: `exec resume` takes no `--sandbox` flag (codex 0.169), and both take `-c`.
  if (ctx.readOnly) argv.push('-c', 'sandbox_mode="read-only"');
  // Its web search tool (top-level `web_search`, codex 0.169: live, indexed, cached or disabled).
  if (ctx.networkTools === false) argv.push('-c', 'web_search="disabled"');
  argv.push('--');
  if (ctx.session.type === 'resume') argv.push(assertSafeId(ctx.session.id, 'session id'));
  argv.push('-');
  return { argv, stdin: ctx.prompt };
}

// Most of codex's output is lines in these forms (0.169's key order; see lineForm).
const THREAD_STARTED = lineForm`{"type":"thread.started","thread_id":${STRING}}`;
const TURN_STARTED = lineForm`{"type":"turn.started"}`;
const AGENT_MESSAGE = lineForm`{"type":"item.completed","item":{"id":${STRING},"type":"agent_message","text":${STRING}}}`;
const TURN_COMPLETED = lineForm`{"type":"turn.completed","usage":{"input_tokens":${NUMBER},"cached_input_tokens":${NUMBER},"cache_write_input_tokens":${NUMBER},"output_tokens":${NUMBER},"reasoning_output_tokens":${NUMBER}}}`;

/** The JSON of a line in one of those forms, the object JSON.parse makes of it; else undefined. */
export function formJson(line: string): Json | undefined {
  let m = readForm(AGENT_MESSAGE.all, line);
  if (m) return { type: 'item.completed', item: { id: s(m[1]!), type: 'agent_message', text: s(m[2]!) } };
  m = readForm(TURN_COMPLETED.all, line);
  if (m) {
    const usage = {
      input_tokens: n(m[1]!),
      cached_input_tokens: n(m[2]!),
      cache_write_input_tokens: n(m[3]!),
      output_tokens: n(m[4]!),
      reasoning_output_tokens: n(m[5]!),
    };
    return { type: 'turn.completed', usage };
  }
  m = readForm(THREAD_STARTED.all, line);
  if (m) return { type: 'thread.started', thread_id: s(m[1]!) };
  if (readForm(TURN_STARTED.all, line)) return { type: 'turn.started' };
  return undefined;
}

/** A line's JSON as jsonLine gives it, read off the line when it is in one of the forms. */
const readLine = (line: string): Json | undefined => formJson(line) ?? jsonLine(line);

// Items of other kinds (commands, file changes, tool calls) starting means the agent carries on.
// Only a line holding one of these words can say either, so the rest (turns, usage, finished
// commands: most of a run) goes by unread while streaming, and a message is read off its line.
const STREAM_WORDS = wordsTest('agent_message', 'item.started');
const MESSAGE_TEXT = AGENT_MESSAGE.only(2);

function streamEvent(ev: Json): StreamEvent[] {
  const item = obj(ev.item);
  if (ev.type === 'item.completed' && item?.type === 'agent_message') return message(str(item.text) ?? '');
  if (ev.type === 'item.started' && item?.type !== 'agent_message' && item?.type !== 'reasoning')
    return CONTINUED;
  return NONE;
}

/** The reducer has no state: each line says what it says. */
export function reducer(): Reducer {
  return {
    event: streamEvent,
    line: (line) => {
      if (!STREAM_WORDS.test(line)) return NONE;
      const m = readForm(MESSAGE_TEXT, line);
      if (m) return message(s(m[1]!));
      const ev = jsonLine(line);
      return ev ? streamEvent(ev) : NONE;
    },
  };
}

const messageStream = (): ((line: string) => StreamEvent[]) => reducer().line;

function parse(out: RunOutput): Parsed {
  const messages: string[] = [];
  let sessionId: string | undefined;
  let failed: string | undefined;
  let completed = false;
  let usage: ReturnType<typeof usageOf>;
  for (const line of out.stdoutLines) {
    const ev = readLine(line);
    if (!ev) continue;
    if (ev.type === 'thread.started') sessionId = str(ev.thread_id) ?? sessionId;
    if (ev.type === 'turn.failed') failed = str(obj(ev.error)?.message) ?? 'the turn failed';
    if (ev.type === 'turn.completed') {
      completed = true;
      const u = obj(ev.usage);
      usage = usageOf(num(u?.input_tokens), num(u?.output_tokens));
    }
    addTexts(messages, streamEvent(ev));
  }
  const base = { sessionId, exitCode: out.exitCode, signal: out.signal };
  if (failed !== undefined) {
    return errorResult(NAME, classifyError(failed) ?? 'exit', { ...base, detail: failed });
  }
  if (out.exitCode !== 0) {
    // Before any JSON (a stale thread id, a bad flag) the reason is on stderr.
    const text = stripBacktrace(out.stderr);
    return errorResult(NAME, classifyError(text) ?? 'exit', { ...base, detail: text });
  }
  if (completed || messages.length > 0)
    return okResult(messages, { sessionId, usage, truncated: out.truncated });
  return errorResult(NAME, 'unparseable', base);
}

/**
 * Codex retries a refused key five times (about 6 s) and an unreachable provider forever: offline,
 * its retries fail name lookups from about 16 s in and it says `waiting for network` after about
 * 70 s, then waits with nothing more on stdout (fixtures/agents/codex/no-credentials.json). Both
 * show in its `Reconnecting...` error lines; a refused key never becomes a good one by retrying.
 */
function trouble(line: string): Trouble | undefined {
  if (!line.includes('Reconnecting')) return undefined;
  const ev = jsonLine(line);
  const text = ev?.type === 'error' ? str(ev.message) : undefined;
  if (!text?.startsWith('Reconnecting')) return undefined;
  if (/\b401\b|unauthorized/i.test(text)) return { kind: 'auth', stop: true, detail: text };
  if (/waiting for network/i.test(text)) return { kind: 'offline', stop: true, detail: text };
  if (/lookup address|error sending request|connection (failed|refused)|network is unreachable/i.test(text))
    return { kind: 'offline', stop: false, detail: text };
  return undefined;
}

function stripBacktrace(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => l.trim() && !/^reading additional input from stdin/i.test(l.trim()))
    .join('\n');
}

const CODEX_TOOLS: Record<string, string> = {
  command_execution: 'shell',
  file_change: 'edit',
  web_search: 'web_search',
};

/** codex exec --json: items start and complete; a command's own line says what it runs. */
export function codexExecProgress(ev: Json): ProgressStep[] {
  const item = obj(ev.item);
  const type = str(item?.type);
  if (!item || !type || (ev.type !== 'item.started' && ev.type !== 'item.completed')) return NO_STEPS;
  if (type === 'agent_message') {
    const text = ev.type === 'item.completed' ? str(item.text) : undefined;
    return text ? [{ type: 'text', delta: text }] : NO_STEPS;
  }
  if (type === 'reasoning') return [{ type: 'thinking' }];
  if (type === 'user_message' || type === 'todo_list' || type === 'error') return NO_STEPS;
  const id = str(item.id);
  if (ev.type === 'item.completed') {
    const failed = item.status === 'failed' || (typeof item.exit_code === 'number' && item.exit_code !== 0);
    return [{ type: 'tool_done', ...(id !== undefined && { id }), ok: !failed }];
  }
  const command = str(item.command);
  const name =
    type === 'mcp_tool_call' ? [str(item.server), str(item.tool)].filter(Boolean).join('/') : undefined;
  return step(name || CODEX_TOOLS[type] || type, id, command ? unwrapShell(command) : detailOf(item));
}

export const codexSpec: AgentSpec = {
  kind: 'codex',
  displayName: NAME,
  program: 'codex',
  install: { npm: '@openai/codex', hint: 'npm install -g @openai/codex' },
  versionArgs: ['--version'],
  docsUrl: 'https://github.com/openai/codex',
  session: SESSION,
  nestedEnv: ['CODEX_SANDBOX', 'CODEX_SANDBOX_NETWORK_DISABLED'],
  // Text mode writes a header on stderr (fixtures/agents/codex/new-text.json).
  textSessionId: /^session id: ([0-9A-Za-z][0-9A-Za-z-]{7,})\s*$/m,
  choosesSessionId: 'cli',
  // CODEX_HOME replaces ~/.codex: config.toml, auth.json, sessions/.
  homeEnv: (dir) => ({ CODEX_HOME: dir }),
  // Its sessions, settings and login: bound read-write by the bwrap sandbox.
  state: (env, home) => ({ dirs: [env.CODEX_HOME || join(home, '.codex')], files: [], readFiles: [] }),
  passEnv: [
    'OPENAI_API_KEY',
    'CODEX_API_KEY',
    'CODEX_HOME',
    'OPENAI_BASE_URL',
    'AZURE_OPENAI_API_KEY',
    'HTTPS_PROXY',
    'HTTP_PROXY',
    'NO_PROXY',
    'SSL_CERT_FILE',
  ],
  thinkingLevels: THINKING,
  tools: codexTools,
  build,
  messageStream,
  progressStream: progressLines(codexExecProgress),
  trouble,
  // `codex login status` exits 1 with `Not logged in` (fixtures/agents/codex/login-status-no-credentials.json).
  signIn: { args: ['login', 'status'], signedOut: /^not logged in\b/im, login: 'codex login' },
  parse,
};

// How this CLI is given agentwire's MCP server for one cold run (docs/tools.md): never the user's
// own config files, only flags, environment, or a file in our state folder that lives for the run.
/**
 * codex: no flag for a server, so `-c mcp_servers.agentwire.*` per run. Codex starts MCP servers
 * with a cleaned environment; `env_vars` names the variables it passes through from its own, which
 * keeps the token out of argv. Tools of this server are approved without asking (`codex exec` has
 * nobody to ask). `tool_timeout_sec` (default 60) lets a call wait as long as the run may.
 */
export function codexTools(server: ToolServer): ToolWiring {
  const key = `mcp_servers.${TOOL_SERVER_NAME}`;
  return {
    args: [
      '-c',
      `${key}.command=${toml(server.command)}`,
      '-c',
      `${key}.args=${toml(server.args)}`,
      '-c',
      `${key}.env_vars=${toml([TOOLS_TOKEN_ENV, TOOLS_SOCKET_ENV, TOOLS_TIMEOUT_ENV])}`,
      '-c',
      `${key}.default_tools_approval_mode="approve"`,
      '-c',
      `${key}.tool_timeout_sec=${Math.ceil(server.callTimeoutMs / 1000)}`,
    ],
  };
}

/**
 * The same server for one warm thread, as `thread/start` / `thread/resume` config overrides: codex
 * starts a thread's MCP servers with the thread's config, so each chat's thread on a shared
 * app-server gets its own token, and the process itself is started without one (chats can share
 * it). The token travels in the request on stdin, never in argv.
 */
export function codexThreadTools(
  server: ToolServer,
): Record<string, string | number | boolean | string[] | object> {
  const key = `mcp_servers.${TOOL_SERVER_NAME}`;
  return {
    [`${key}.command`]: server.command,
    [`${key}.args`]: [...server.args],
    [`${key}.env`]: { ...server.env },
    [`${key}.default_tools_approval_mode`]: 'approve',
    [`${key}.tool_timeout_sec`]: Math.ceil(server.callTimeoutMs / 1000),
    // A thread's MCP servers start in the background: without this the first turn could reach the
    // model before our server listed its tools (seen under load, sandboxed: the model was offered
    // none of them). Required, codex waits for it when the thread starts.
    [`${key}.required`]: true,
  };
}
