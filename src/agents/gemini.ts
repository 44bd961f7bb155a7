// Gemini CLI: `gemini --output-format stream-json` with the prompt on stdin (`-p -- X` is refused
// and a positional prompt would start interactive mode). The relay chooses new ids
// (`--session-id`, [A-Za-z0-9_-]); `--resume <id>` continues. Assistant text streams as deltas that
// split tokens, so a turn's deltas are joined before MEDIA lines are looked for; a tool call ends a
// turn. Exit codes are the HTTP status mod 256, and exit 0 after a SIGTERM is not success: only a
// `result` event with status "success" (or json mode's `response`) is.

import { join } from 'node:path';
import type { ProgressStep } from '../core/progress-event.js';
import {
  addTexts,
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
  sessionArgs,
  str,
  usageOf,
} from './common.js';
import { jsonPattern, lineForm, NUMBER, readForm, STRING, stringValue, wordsTest } from './line-forms.js';
import { detailOf, NO_STEPS, progressLines, step } from './progress-map.js';
import { stdioEntry, TOOL_SERVER_NAME, TOOLS_RENAME_ENV } from './tool-server.js';
import type {
  AgentSpec,
  BuildContext,
  Invocation,
  RunOutput,
  StreamEvent,
  ToolServer,
  ToolWiring,
} from './types.js';

const NAME = 'Gemini CLI';
// Where the session goes on the command line (AgentSpec.session).
const SESSION: AgentSpec['session'] = { newFlag: '--session-id', resumeFlag: '--resume' };

function build(ctx: BuildContext): Invocation {
  // --skip-trust: the working folder is the one the owner configured for the agent; without it
  // gemini exits 55 in every folder it has not been told to trust.
  const argv = [...ctx.command, '--output-format', 'stream-json', '--skip-trust'];
  argv.push(...sessionArgs(SESSION, ctx.session));
  if (ctx.model) argv.push('--model', safeArg(ctx.model, 'model'));
  return { argv, stdin: ctx.prompt, ...(ctx.session.id ? { sessionId: ctx.session.id } : {}) };
}

// Most of a run is assistant deltas, one line each in this form (see lineForm); only their content
// matters, and it is read off the line.
const DELTA = lineForm`{"type":"message","timestamp":${STRING},"role":"assistant","content":${STRING},"delta":true}`;
const DELTA_CONTENT = DELTA.only(2);

/** The content of a line in the delta form, else undefined. */
export function deltaContent(line: string): string | undefined {
  const m = readForm(DELTA_CONTENT, line);
  return m ? stringValue(m[1]!) : undefined;
}

// A result line only ends the turn for the stream; that it is one, in the form gemini prints after a
// success, is all the stream needs to know (parse reads it whole).
const MODEL = jsonPattern`${STRING}:{"total_tokens":${NUMBER},"input_tokens":${NUMBER},"output_tokens":${NUMBER},"cached":${NUMBER},"input":${NUMBER}}`;
const MODELS = `(?:${MODEL}(?:,${MODEL})*)?`;
const RESULT = lineForm`{"type":"result","timestamp":${STRING},"status":${STRING},"stats":{"total_tokens":${NUMBER},"input_tokens":${NUMBER},"output_tokens":${NUMBER},"cached":${NUMBER},"input":${NUMBER},"duration_ms":${NUMBER},"tool_calls":${NUMBER},"models":{${MODELS}}}}`;
const IS_RESULT = RESULT.only();

// Init, user and tool result lines go by unread; a result or end only matters to a turn under way.
const STREAM_WORDS = wordsTest('assistant', 'tool_use');
const TURN_END = wordsTest('result', 'end');

export function reducer(): Reducer & { delta(content: string): void } {
  let turn = '';
  const flush = (): StreamEvent[] => {
    const t = turn;
    turn = '';
    return message(t);
  };
  const event = (ev: Json): StreamEvent[] => {
    if (ev.type === 'message' && ev.role === 'assistant') {
      const c = str(ev.content) ?? '';
      // Without `delta` the event holds the whole message.
      if (ev.delta === true) turn += c;
      else return [...flush(), ...message(c)];
      return NONE;
    }
    if (ev.type === 'tool_use') return [...flush(), ...CONTINUED];
    if (ev.type === 'result' || ev.type === 'end') return flush();
    return NONE;
  };
  return {
    event,
    delta: (content) => {
      turn += content;
    },
    line: (line) => {
      const d = deltaContent(line);
      if (d !== undefined) {
        turn += d;
        return NONE;
      }
      if (!STREAM_WORDS.test(line) && (turn === '' || !TURN_END.test(line))) return NONE;
      if (readForm(IS_RESULT, line)) return flush();
      const ev = jsonLine(line);
      return ev ? event(ev) : NONE;
    },
  };
}

const messageStream = (): ((line: string) => StreamEvent[]) => reducer().line;

// Exit codes are `status & 255`; these are the statuses worth naming.
const STATUS_BY_EXIT = new Map([401, 403, 400, 429, 500, 502, 503, 504, 529].map((s) => [s & 255, s]));

/** The error JSON gemini prints on stderr in json mode (after stack traces), if any. */
function stderrError(stderr: string): Json | undefined {
  const i = stderr.lastIndexOf('{"session_id"');
  const tail = i >= 0 ? stderr.slice(i) : '';
  const blob = jsonLine(tail.split('\n')[0] ?? '') ?? tryJson(tail);
  return blob && obj(blob.error) ? blob : undefined;
}

/** The multi-line object of `-o json`, found between warning lines printed around it. */
function prettyJson(lines: readonly string[]): Json | undefined {
  const start = lines.indexOf('{');
  const end = lines.lastIndexOf('}');
  return start >= 0 && end > start ? tryJson(lines.slice(start, end + 1).join('\n')) : undefined;
}

function tryJson(text: string): Json | undefined {
  try {
    return obj(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function parse(out: RunOutput): Parsed {
  const next = reducer();
  const messages: string[] = [];
  let sessionId: string | undefined;
  let result: Json | undefined;
  for (const line of out.stdoutLines) {
    const delta = deltaContent(line);
    if (delta !== undefined) {
      next.delta(delta);
      continue;
    }
    const ev = jsonLine(line);
    if (!ev) continue;
    if (ev.type === 'init') sessionId = str(ev.session_id) ?? sessionId;
    if (ev.type === 'result') result = ev;
    addTexts(messages, next.event(ev));
  }
  addTexts(messages, next.event({ type: 'end' }));
  // `-o json` is one pretty-printed object spread over many lines.
  const whole = result ? undefined : prettyJson(out.stdoutLines);
  if (whole) sessionId = str(whole.session_id) ?? sessionId;
  const errJson = stderrError(out.stderr);
  sessionId ??= str(errJson?.session_id);
  const base = { sessionId, exitCode: out.exitCode, signal: out.signal };

  if (result?.status === 'success' || (whole && str(whole.response) !== undefined && !whole.error)) {
    const stats = obj(result?.stats);
    const usage = usageOf(num(stats?.input_tokens), num(stats?.output_tokens));
    const reply = whole ? [str(whole.response) ?? ''] : messages;
    return okResult(reply, { sessionId, usage, truncated: out.truncated });
  }
  // No key, no login and no auth method chosen: exit 41 and this one line on stderr
  // (fixtures/agents/gemini/no-credentials.json), where the owner needs to be told what to do.
  if (out.exitCode === 41 && /please set an auth method/i.test(out.stderr))
    return errorResult(NAME, 'auth', {
      ...base,
      detail: lastLines(out.stderr),
      message: notSignedInMessage(NAME, 'run `gemini` once to sign in (or set GEMINI_API_KEY)'),
    });
  const error = obj(result?.error) ?? obj(whole?.error) ?? obj(errJson?.error);
  const status = num(error?.code) ?? STATUS_BY_EXIT.get(out.exitCode ?? -1);
  const text = [str(error?.message), out.stderr].filter(Boolean).join('\n');
  if (error || out.exitCode !== 0) {
    const kind = classifyError(text, status) ?? 'exit';
    return errorResult(NAME, kind, { ...base, detail: str(error?.message) ?? lastLines(out.stderr) });
  }
  return errorResult(NAME, 'unparseable', base);
}

/** Gemini prints colour and ripgrep warnings first; the reason is at the end. */
function lastLines(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^(warning:|ripgrep is not available|\[startup\]|at |yolo mode)/i.test(l));
  return lines[0] ?? '';
}

/** gemini --output-format stream-json. */
export function geminiProgress(ev: Json): ProgressStep[] {
  const id = str(ev.tool_id);
  switch (ev.type) {
    case 'tool_use':
      return step(str(ev.tool_name), id, detailOf(ev.parameters));
    case 'tool_result':
      return [{ type: 'tool_done', ...(id !== undefined && { id }), ok: ev.status === 'success' }];
    case 'message': {
      const text = ev.role === 'assistant' ? str(ev.content) : undefined;
      return text ? [{ type: 'text', delta: text }] : NO_STEPS;
    }
    default:
      return NO_STEPS;
  }
}

export const geminiSpec: AgentSpec = {
  kind: 'gemini',
  displayName: NAME,
  program: 'gemini',
  install: { npm: '@google/gemini-cli', hint: 'npm install -g @google/gemini-cli' },
  versionArgs: ['--version'],
  docsUrl: 'https://github.com/google-gemini/gemini-cli',
  session: SESSION,
  nestedEnv: ['GEMINI_CLI'],
  choosesSessionId: 'relay-uuid',
  // GEMINI_CLI_HOME stands in for the home folder: ~/.gemini (settings, OAuth creds, chats) moves under it.
  homeEnv: (dir) => ({ GEMINI_CLI_HOME: dir }),
  // Its sessions, settings and login: bound read-write by the bwrap sandbox.
  state: (env, home) => ({
    dirs: [join(env.GEMINI_CLI_HOME || home, '.gemini')],
    files: [],
    readFiles: env.GOOGLE_APPLICATION_CREDENTIALS ? [env.GOOGLE_APPLICATION_CREDENTIALS] : [],
  }),
  passEnv: [
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
    'GOOGLE_GENAI_USE_VERTEXAI',
    'GOOGLE_CLOUD_PROJECT',
    'GOOGLE_CLOUD_LOCATION',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'GOOGLE_GEMINI_BASE_URL',
    'GEMINI_CLI_TRUST_WORKSPACE',
    'GEMINI_CLI_NO_RELAUNCH',
    'HTTPS_PROXY',
    'HTTP_PROXY',
    'NO_PROXY',
  ],
  thinkingLevels: [],
  tools: geminiTools,
  build,
  messageStream,
  progressStream: progressLines(geminiProgress),
  parse,
};

// How this CLI is given agentwire's MCP server for one cold run (docs/tools.md): never the user's
// own config files, only flags, environment, or a file in our state folder that lives for the run.
/**
 * gemini: `GEMINI_CLI_SYSTEM_SETTINGS_PATH` points the system-settings layer at a per-run file whose
 * `mcpServers` is shallow-merged with the user's own (verified in gemini-cli 0.61's bundle). `trust`
 * skips the confirmation a non-interactive run cannot answer. It replaces a machine-wide system
 * settings file for these runs (rare on a personal machine; docs/tools.md says so). gemini skips a
 * settings file with a group- or world-writable folder above it (/tmp): the state folder must not be.
 * `timeout` is the server's tool-call limit in ms (gemini's default is 10 minutes).
 * gemini 0.61 drops from the model's tools, in ACP and headless runs (all of ours), every tool whose
 * name without the server's prefix is `ask_user` (its own tool of that name needs its terminal UI):
 * ours is listed to gemini as `ask_person` (found by the real-CLI suite, test/clis/ask-user-relay).
 */
export const GEMINI_RENAMES = { ask_user: 'ask_person' } as const;

export function geminiTools(server: ToolServer, runFile: (name: string) => string): ToolWiring {
  const file = runFile('gemini-settings.json');
  const base = stdioEntry(server);
  const entry = {
    ...base,
    env: { ...base.env, [TOOLS_RENAME_ENV]: JSON.stringify(GEMINI_RENAMES) },
    trust: true,
    timeout: server.callTimeoutMs,
  };
  const settings = { mcpServers: { [TOOL_SERVER_NAME]: entry } };
  return {
    args: [],
    env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: file },
    files: [{ path: file, content: JSON.stringify(settings) }],
  };
}
