// Claude Code: `claude -p --output-format stream-json --verbose …` with the prompt on stdin (`--`
// works too, but argv has a 128 KiB per-argument limit and stdin is verbatim). The relay chooses new
// session ids (`--session-id <uuid>`); `--resume <id>` continues. Every event carries session_id.
// API errors arrive as a synthetic assistant message plus a `result` with is_error (subtype still
// "success"), so the result line decides, not the exit code alone.

import { join } from 'node:path';
import type { ProgressStep } from '../core/progress-event.js';
import {
  addTexts,
  arr,
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
  sessionArgs,
  str,
  usageOf,
} from './common.js';
import { wordsTest } from './line-forms.js';
import { detailOf, NO_STEPS, progressLines, step } from './progress-map.js';
import { stdioEntry, TOOL_SERVER_NAME } from './tool-server.js';
import type {
  AgentSpec,
  BuildContext,
  Invocation,
  RunOutput,
  StreamEvent,
  ToolServer,
  ToolWiring,
} from './types.js';

const NAME = 'Claude Code';
// Where the session goes on the command line (AgentSpec.session).
const SESSION: AgentSpec['session'] = { newFlag: '--session-id', resumeFlag: '--resume' };

const THINKING = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

/** claude's own tools that reach the network (its Bash can still run curl: no flag stops that). */
export const CLAUDE_NETWORK_TOOLS = 'WebFetch,WebSearch';

function build(ctx: BuildContext): Invocation {
  const argv = [...ctx.command, '-p', '--output-format', 'stream-json', '--verbose'];
  // The flag takes a list: followed by a flag (the session's), so nothing else is read into it.
  if (ctx.networkTools === false) argv.push('--disallowedTools', CLAUDE_NETWORK_TOOLS);
  argv.push(...sessionArgs(SESSION, ctx.session));
  if (ctx.model) argv.push('--model', safeArg(ctx.model, 'model'));
  if (ctx.thinking) argv.push('--effort', safeArg(ctx.thinking, 'thinking level'));
  if (ctx.systemText) argv.push(`--append-system-prompt=${ctx.systemText}`);
  return { argv, stdin: ctx.prompt, ...(ctx.session.id ? { sessionId: ctx.session.id } : {}) };
}

/** Text of an assistant event that is a real reply (not an API error, not a sub-agent's). */
function assistantText(ev: Json): { id: string; text: string } | undefined {
  if (ev.type !== 'assistant' || ev.is_api_error_message === true) return undefined;
  if (ev.parent_tool_use_id !== null && ev.parent_tool_use_id !== undefined) return undefined;
  const msg = obj(ev.message);
  if (!msg || msg.model === '<synthetic>') return undefined;
  const text = arr(msg.content)
    .map(obj)
    .filter((b) => b?.type === 'text')
    .map((b) => str(b?.text) ?? '')
    .join('');
  return { id: str(msg.id) ?? '', text };
}

const STREAM_WORDS = wordsTest('assistant', 'user');

// Claude streams one assistant event per content block; blocks of one message share its id, so a
// message is complete when an event of another message (or any other event) arrives. A tool_use
// block or a tool result means the agent carries on.
export function reducer(): Reducer {
  let current: { id: string; text: string } | undefined;
  const flush = (): StreamEvent[] => {
    const text = current?.text ?? '';
    current = undefined;
    return message(text);
  };
  const event = (ev: Json): StreamEvent[] => {
    const a = assistantText(ev);
    if (a) {
      const toolUse = arr(obj(ev.message)?.content).some((b) => obj(b)?.type === 'tool_use');
      if (current && a.id !== '' && current.id === a.id) {
        if (a.text) current.text = current.text ? `${current.text}\n\n${a.text}` : a.text;
        return toolUse ? [...flush(), ...CONTINUED] : NONE;
      }
      const done = flush();
      current = { ...a };
      return toolUse ? [...done, ...flush(), ...CONTINUED] : done;
    }
    // A synthetic API-error message is not a reply and does not end one.
    if (ev.type === 'assistant') return NONE;
    return ev.type === 'user' ? [...flush(), ...CONTINUED] : flush();
  };
  return {
    event,
    line: (line) => {
      // With no message under way, any event but an assistant or user one changes nothing (the
      // system line that opens a run, say), and there is nothing to end.
      if (!current && !STREAM_WORDS.test(line)) return NONE;
      const ev = jsonLine(line);
      return ev ? event(ev) : NONE;
    },
  };
}

const messageStream = (): ((line: string) => StreamEvent[]) => reducer().line;

// Every event carries session_id, and the last one is the session: that alone would make parse read
// every line. Lines without these words matter to nothing else but the messages (the reducer reads
// them if they can end one), so they are passed by, and the session id is looked for from the end.
const PARSE_WORDS = wordsTest('result', 'assistant', 'user');

function parse(out: RunOutput): Parsed {
  const lines = out.stdoutLines;
  const next = reducer();
  const messages: string[] = [];
  let sessionId: string | undefined;
  let sessionAt = -1;
  let result: Json | undefined;
  let apiError: { text: string; status?: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!PARSE_WORDS.test(line)) {
      addTexts(messages, next.line(line));
      continue;
    }
    const ev = jsonLine(line);
    if (!ev) continue;
    if (typeof ev.session_id === 'string') [sessionId, sessionAt] = [ev.session_id, i];
    if (ev.type === 'result') result = ev;
    if (
      ev.type === 'assistant' &&
      (ev.is_api_error_message === true || obj(ev.message)?.model === '<synthetic>')
    ) {
      const text = arr(obj(ev.message)?.content)
        .map((b) => str(obj(b)?.text) ?? '')
        .join('');
      apiError = {
        text,
        ...(num(ev.api_error_status) !== undefined ? { status: num(ev.api_error_status)! } : {}),
      };
    }
    addTexts(messages, next.event(ev));
  }
  addTexts(messages, next.event({ type: 'end' }));
  for (let i = lines.length - 1; i > sessionAt; i--) {
    const id = str(jsonLine(lines[i]!)?.session_id);
    if (id !== undefined) {
      sessionId = id;
      break;
    }
  }
  const base = { sessionId, exitCode: out.exitCode, signal: out.signal };

  if (result) {
    const usage = obj(result.usage);
    const cost = num(result.total_cost_usd);
    if (result.is_error === true || (result.subtype !== undefined && result.subtype !== 'success')) {
      const text = [str(result.result), ...arr(result.errors).map(str), apiError?.text, out.stderr]
        .filter(Boolean)
        .join('\n');
      const status = num(result.api_error_status) ?? apiError?.status;
      return errorResult(NAME, classifyError(text, status) ?? 'exit', { ...base, detail: text });
    }
    const reply = messages.length > 0 ? messages : [str(result.result) ?? ''];
    return okResult(reply, {
      sessionId,
      usage: usageOf(num(usage?.input_tokens), num(usage?.output_tokens), cost),
      truncated: out.truncated,
    });
  }
  // No result line: an early failure (bad flag, bad config) or a stream cut short.
  const plain = out.stdoutLines.filter((l) => !jsonLine(l)).join('\n');
  if (out.exitCode !== 0) {
    const text = [apiError?.text, out.stderr, plain].filter(Boolean).join('\n');
    return errorResult(NAME, classifyError(text, apiError?.status) ?? 'exit', { ...base, detail: text });
  }
  // Exit 0 without a result line (cut short, or stray text): only whole assistant messages count.
  if (messages.length > 0) return okResult(messages, { sessionId, truncated: out.truncated });
  return errorResult(NAME, 'unparseable', base);
}

/** claude stream-json (`-p --output-format stream-json --verbose`, cold and warm). */
export function claudeProgress(ev: Json): ProgressStep[] {
  const msg = obj(ev.message);
  if (ev.type === 'assistant' && msg && msg.model !== '<synthetic>') {
    return arr(msg.content).flatMap((b): ProgressStep[] => {
      const block = obj(b);
      if (block?.type === 'tool_use') return step(str(block.name), str(block.id), detailOf(block.input));
      if (block?.type === 'thinking') return [{ type: 'thinking' }];
      const text = block?.type === 'text' ? str(block.text) : undefined;
      return text ? [{ type: 'text', delta: text }] : NO_STEPS;
    });
  }
  if (ev.type === 'user' && msg) {
    return arr(msg.content).flatMap((b): ProgressStep[] => {
      const block = obj(b);
      if (block?.type !== 'tool_result') return NO_STEPS;
      const id = str(block.tool_use_id);
      return [{ type: 'tool_done', ...(id !== undefined && { id }), ok: block.is_error !== true }];
    });
  }
  return NO_STEPS;
}

export const claudeSpec: AgentSpec = {
  kind: 'claude',
  displayName: NAME,
  program: 'claude',
  install: { npm: '@anthropic-ai/claude-code', hint: 'npm install -g @anthropic-ai/claude-code' },
  versionArgs: ['--version'],
  docsUrl: 'https://docs.anthropic.com/en/docs/claude-code/cli-reference',
  session: SESSION,
  nestedEnv: ['CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'CLAUDE_CODE_SSE_PORT'],
  choosesSessionId: 'relay-uuid',
  // CLAUDE_CONFIG_DIR replaces ~/.claude (and ~/.claude.json): settings, credentials, transcripts.
  homeEnv: (dir) => ({ CLAUDE_CONFIG_DIR: dir }),
  // Its sessions, settings and login: bound read-write by the bwrap sandbox.
  state: (env, home) =>
    env.CLAUDE_CONFIG_DIR
      ? { dirs: [env.CLAUDE_CONFIG_DIR], files: [], readFiles: [] }
      : { dirs: [join(home, '.claude')], files: [join(home, '.claude.json')], readFiles: [] },
  passEnv: [
    'ANTHROPIC_API_KEY',
    'ANTHROPIC_AUTH_TOKEN',
    'ANTHROPIC_BASE_URL',
    'ANTHROPIC_MODEL',
    'CLAUDE_CODE_USE_BEDROCK',
    'CLAUDE_CODE_USE_VERTEX',
    'CLAUDE_CONFIG_DIR',
    'AWS_PROFILE',
    'AWS_REGION',
    'CLOUD_ML_REGION',
    'ANTHROPIC_VERTEX_PROJECT_ID',
    'API_TIMEOUT_MS',
    'HTTPS_PROXY',
    'HTTP_PROXY',
    'NO_PROXY',
  ],
  thinkingLevels: THINKING,
  tools: claudeTools,
  build,
  messageStream,
  progressStream: progressLines(claudeProgress),
  parse,
};

// How this CLI is given agentwire's MCP server for one cold run (docs/tools.md): never the user's
// own config files, only flags, environment, or a file in our state folder that lives for the run.
/**
 * claude: `--mcp-config <file> --strict-mcp-config`, and each tool allowed by name (in `-p` mode an
 * MCP tool that is not allowed is refused). The file keeps the token out of argv. Tool search is
 * turned off for the run: with it on, MCP tools are only named in the system prompt and the model
 * must load them with ToolSearch first (seen with claude-code 2.1.x against the fake model).
 * `--strict-mcp-config` means the user's own MCP servers are not loaded in relay runs. The entry's
 * `timeout` is claude's per-server tool-call limit in ms (it overrides MCP_TOOL_TIMEOUT; 2.1.330).
 */
export function claudeTools(server: ToolServer, runFile: (name: string) => string): ToolWiring {
  const file = runFile('claude-mcp.json');
  const entry = { type: 'stdio', ...stdioEntry(server), timeout: server.callTimeoutMs };
  const config = { mcpServers: { [TOOL_SERVER_NAME]: entry } };
  return {
    args: [
      '--mcp-config',
      file,
      '--strict-mcp-config',
      '--allowedTools',
      // A rule naming only the server allows every tool it lists: the user's own tools included,
      // whose names are not known when the run starts (the relay asks them under its own policy).
      [
        ...server.tools.map((t) => `mcp__${TOOL_SERVER_NAME}__${t}`),
        ...(server.userTools ? [`mcp__${TOOL_SERVER_NAME}`] : []),
      ].join(','),
    ],
    env: { ENABLE_TOOL_SEARCH: 'false' },
    files: [{ path: file, content: JSON.stringify(config) }],
  };
}
