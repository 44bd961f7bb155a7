// opencode: `opencode run --format json …` with the prompt on stdin, resumed with `--session ses_…`.
// (An argv prompt containing a space reaches the model wrapped in literal quotes; stdin is verbatim.)
// opencode
// chooses ids (invented ones fail with "Session not found"); every event carries `sessionID`. Text
// comes whole per part; the reply is the text of the step that finished with reason "stop", and
// text of steps that ended in tool calls is progress. `reasoning` parts are never text.

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
import {
  lineForm,
  NUMBER,
  numberValue as n,
  readForm,
  STRING,
  stringValue as s,
  wordsTest,
} from './line-forms.js';
import { detailOf, NO_STEPS, progressLines, step } from './progress-map.js';
import { TOOL_SERVER_NAME } from './tool-server.js';
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

const NAME = 'opencode';
// Where the session goes on the command line (AgentSpec.session).
const SESSION: AgentSpec['session'] = { resumeFlag: '--session' };

/**
 * Its error log lines on stderr: offline (or not signed in, on its keyless default provider) it
 * prints nothing else for about 90 s of retries, then one "Cannot connect to API" event; each failed
 * try is logged as it happens, which is how a run learns within seconds (see `trouble`).
 */
const LOG_ARGS = ['--print-logs', '--log-level', 'ERROR'];

function build(ctx: BuildContext): Invocation {
  const argv = [...ctx.command, 'run', '--format', 'json', ...LOG_ARGS];
  // opencode chooses new ids itself, so only a resume names one.
  argv.push(...sessionArgs(SESSION, ctx.session));
  if (ctx.model) argv.push('--model', safeArg(ctx.model, 'model'));
  if (ctx.thinking) argv.push('--variant', safeArg(ctx.thinking, 'thinking level'));
  if (ctx.networkTools === false) return { argv, stdin: ctx.prompt, env: opencodeNoNetwork(ctx.env) };
  return { argv, stdin: ctx.prompt };
}

// Nearly all of opencode's output is lines in these forms (1.18's key order; see lineForm). Text and
// reasoning parts share one.
const PART = '"(?:text|reasoning)"';
const STEP_START = lineForm`{"type":"step_start","timestamp":${NUMBER},"sessionID":${STRING},"part":{"id":${STRING},"messageID":${STRING},"sessionID":${STRING},"type":"step-start"}}`;
const TEXT = lineForm`{"type":${PART},"timestamp":${NUMBER},"sessionID":${STRING},"part":{"id":${STRING},"messageID":${STRING},"sessionID":${STRING},"type":${PART},"text":${STRING},"time":{"start":${NUMBER},"end":${NUMBER}}}}`;
const STEP_FINISH = lineForm`{"type":"step_finish","timestamp":${NUMBER},"sessionID":${STRING},"part":{"id":${STRING},"reason":${STRING},"messageID":${STRING},"sessionID":${STRING},"type":"step-finish","tokens":{"total":${NUMBER},"input":${NUMBER},"output":${NUMBER},"reasoning":${NUMBER},"cache":{"write":${NUMBER},"read":${NUMBER}}},"cost":${NUMBER}}}`;

/** The JSON of a line in one of those forms, the object JSON.parse makes of it; else undefined. */
export function formJson(line: string): Json | undefined {
  let m = readForm(STEP_FINISH.all, line);
  if (m) {
    return {
      type: 'step_finish',
      timestamp: n(m[1]!),
      sessionID: s(m[2]!),
      part: {
        id: s(m[3]!),
        reason: s(m[4]!),
        messageID: s(m[5]!),
        sessionID: s(m[6]!),
        type: 'step-finish',
        tokens: {
          total: n(m[7]!),
          input: n(m[8]!),
          output: n(m[9]!),
          reasoning: n(m[10]!),
          cache: { write: n(m[11]!), read: n(m[12]!) },
        },
        cost: n(m[13]!),
      },
    };
  }
  m = readForm(TEXT.all, line);
  if (m) {
    return {
      type: s(m[1]!),
      timestamp: n(m[2]!),
      sessionID: s(m[3]!),
      part: {
        id: s(m[4]!),
        messageID: s(m[5]!),
        sessionID: s(m[6]!),
        type: s(m[7]!),
        text: s(m[8]!),
        time: { start: n(m[9]!), end: n(m[10]!) },
      },
    };
  }
  m = readForm(STEP_START.all, line);
  if (m) {
    return {
      type: 'step_start',
      timestamp: n(m[1]!),
      sessionID: s(m[2]!),
      part: { id: s(m[3]!), messageID: s(m[4]!), sessionID: s(m[5]!), type: 'step-start' },
    };
  }
  return undefined;
}

/** A line's JSON as jsonLine gives it, read off the line when it is in one of the forms. */
const readLine = (line: string): Json | undefined => formJson(line) ?? jsonLine(line);

// Texts of the current step; a step's text is a message once the step finishes, and a step that
// finished for tool calls (or a tool part) means the agent carries on. While streaming, a line that
// cannot be one of these events goes by unread, a step start only matters when it drops texts of an
// unfinished step, and a line in one of the forms is read for the one value the stream needs.
const STREAM_WORDS = wordsTest('text', 'tool_use', 'step_finish');
const STEP_START_WORD = wordsTest('step_start');
const PART_TEXT = TEXT.only(1, 8);
const FINISH_REASON = STEP_FINISH.only(4);
const STARTED = STEP_START.only();

export function reducer(): Reducer {
  let texts: string[] = [];
  const text = (t: string | undefined): StreamEvent[] => {
    if (t) texts.push(t);
    return NONE;
  };
  const finish = (reason: unknown): StreamEvent[] => {
    const done = message(texts.join('\n\n'));
    texts = [];
    return reason === 'tool-calls' ? [...done, ...CONTINUED] : done;
  };
  const event = (ev: Json): StreamEvent[] => {
    if (ev.type === 'step_start') texts = [];
    if (ev.type === 'text') return text(str(obj(ev.part)?.text));
    if (ev.type === 'tool_use') return CONTINUED;
    return ev.type === 'step_finish' ? finish(obj(ev.part)?.reason) : NONE;
  };
  return {
    event,
    line: (line) => {
      if (!STREAM_WORDS.test(line) && (texts.length === 0 || !STEP_START_WORD.test(line))) return NONE;
      let m = readForm(PART_TEXT, line);
      if (m) return m[1] === '"text"' ? text(s(m[2]!)) : NONE;
      m = readForm(FINISH_REASON, line);
      if (m) return finish(s(m[1]!));
      if (readForm(STARTED, line)) {
        texts = [];
        return NONE;
      }
      const ev = jsonLine(line);
      return ev ? event(ev) : NONE;
    },
  };
}

const messageStream = (): ((line: string) => StreamEvent[]) => reducer().line;

function parse(out: RunOutput): Parsed {
  const next = reducer();
  const messages: string[] = [];
  let sessionId: string | undefined;
  let error: { text: string; status?: number } | undefined;
  let stopped = false;
  let input = 0;
  let output = 0;
  let cost = 0;
  for (const line of out.stdoutLines) {
    const ev = readLine(line);
    if (!ev) continue;
    sessionId = str(ev.sessionID) ?? sessionId;
    if (ev.type === 'error') {
      const e = obj(ev.error);
      const data = obj(e?.data);
      const status = num(data?.statusCode);
      error = {
        text: str(data?.message) ?? str(e?.message) ?? str(e?.name) ?? 'error',
        ...(status !== undefined ? { status } : {}),
      };
    }
    if (ev.type === 'step_finish') {
      const part = obj(ev.part);
      if (part?.reason === 'stop') stopped = true;
      const tokens = obj(part?.tokens);
      input += num(tokens?.input) ?? 0;
      output += num(tokens?.output) ?? 0;
      cost += num(part?.cost) ?? 0;
    }
    addTexts(messages, next.event(ev));
  }
  const base = { sessionId, exitCode: out.exitCode, signal: out.signal };
  if (error && !stopped) {
    return errorResult(NAME, classifyError(error.text, error.status) ?? 'exit', {
      ...base,
      detail: error.text,
    });
  }
  if (out.exitCode !== 0) {
    const text = out.stderr.replace(/\x1b\[[0-9;]*m/g, '').trim();
    return errorResult(NAME, classifyError(text) ?? 'exit', { ...base, detail: text });
  }
  if (stopped || messages.length > 0) {
    return okResult(messages, {
      sessionId,
      usage: usageOf(input, output, cost || undefined),
      truncated: out.truncated,
    });
  }
  return errorResult(NAME, 'unparseable', base);
}

/** opencode run --format json: a tool part comes once it ran, so it starts and ends on one line. */
export function opencodeProgress(ev: Json): ProgressStep[] {
  const part = obj(ev.part);
  if (ev.type === 'text') {
    const text = str(part?.text);
    return text ? [{ type: 'text', delta: text }] : NO_STEPS;
  }
  if (ev.type === 'reasoning') return [{ type: 'thinking' }];
  if (ev.type !== 'tool_use' || !part) return NO_STEPS;
  const state = obj(part.state);
  const id = str(part.callID);
  const started = step(str(part.tool), id, detailOf(state?.input) ?? str(state?.title));
  const status = state?.status;
  if (status !== 'completed' && status !== 'error') return started;
  return [...started, { type: 'tool_done', ...(id !== undefined && { id }), ok: status === 'completed' }];
}

/**
 * A failed try at its model provider, from its error log (fixtures/agents/opencode/no-credentials):
 * `message="stream error" … error.error="AI_APICallError: Cannot connect to API: …"`. It retries for
 * about 90 s and may get through, so the run goes on unless it has no sign-in to get through with.
 */
function trouble(line: string): Trouble | undefined {
  if (!line.includes('message="stream error"')) return undefined;
  const said = /\berror\.error="((?:[^"\\]|\\.)*)"/.exec(line)?.[1];
  if (!said || !/Cannot connect to API/i.test(said)) return undefined;
  return { kind: 'offline', stop: false, detail: said };
}

/**
 * `opencode auth list` with no stored login: `0 credentials`, and no provider key in the
 * environment (it lists those as `N environment variable(s)`).
 */
const SIGNED_OUT = /^\W*0 credentials\b(?![\s\S]*\benvironment variables?\b)/m;

export const opencodeSpec: AgentSpec = {
  kind: 'opencode',
  displayName: NAME,
  program: 'opencode',
  install: { npm: 'opencode-ai', hint: 'npm install -g opencode-ai' },
  versionArgs: ['--version'],
  docsUrl: 'https://opencode.ai/docs/cli/',
  session: SESSION,
  nestedEnv: ['OPENCODE'],
  choosesSessionId: 'cli',
  // No folder variable of its own: it follows the XDG base folders (auth.json and sessions in data).
  homeEnv: (dir) => ({
    XDG_CONFIG_HOME: `${dir}/config`,
    XDG_DATA_HOME: `${dir}/data`,
    XDG_STATE_HOME: `${dir}/state`,
    XDG_CACHE_HOME: `${dir}/cache`,
  }),
  // Its sessions, settings and login (the XDG folders): bound read-write by the bwrap sandbox.
  state: (env, home) => ({
    dirs: [
      join(env.XDG_DATA_HOME || join(home, '.local/share'), 'opencode'),
      join(env.XDG_CONFIG_HOME || join(home, '.config'), 'opencode'),
      join(env.XDG_STATE_HOME || join(home, '.local/state'), 'opencode'),
      join(env.XDG_CACHE_HOME || join(home, '.cache'), 'opencode'),
      ...(env.OPENCODE_CONFIG_DIR ? [env.OPENCODE_CONFIG_DIR] : []),
    ],
    files: [],
    readFiles: env.OPENCODE_CONFIG ? [env.OPENCODE_CONFIG] : [],
  }),
  passEnv: [
    'OPENCODE_CONFIG',
    'OPENCODE_CONFIG_DIR',
    'OPENCODE_DISABLE_AUTOUPDATE',
    'OPENCODE_DISABLE_SHARE',
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_GENERATIVE_AI_API_KEY',
    'OPENROUTER_API_KEY',
    'GROQ_API_KEY',
    'XAI_API_KEY',
    'HTTPS_PROXY',
    'HTTP_PROXY',
    'NO_PROXY',
  ],
  thinkingLevels: ['minimal', 'low', 'medium', 'high', 'max'],
  tools: opencodeTools,
  build,
  messageStream,
  progressStream: progressLines(opencodeProgress),
  trouble,
  signIn: { args: ['auth', 'list'], signedOut: SIGNED_OUT, login: 'opencode auth login' },
  parse,
};

// How this CLI is given agentwire's MCP server for one cold run (docs/tools.md): never the user's
// own config files, only flags, environment, or a file in our state folder that lives for the run.
/**
 * opencode: `OPENCODE_CONFIG_CONTENT` is merged over the global and project configs (verified in
 * opencode 1.18's config loader), so the user's opencode.json is read as usual and never written.
 * `timeout` is its limit in ms for each request to the server, tool calls included (without it a
 * tool call was cut off within 65 s on 1.18.33, although its schema says 5 s).
 */
export function opencodeTools(server: ToolServer): ToolWiring {
  const config = {
    mcp: {
      [TOOL_SERVER_NAME]: {
        type: 'local',
        command: [server.command, ...server.args],
        environment: { ...server.env },
        enabled: true,
        timeout: server.callTimeoutMs,
      },
    },
  };
  return { args: [], env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(config) } };
}

// opencode's own network tools (webfetch, websearch) denied, for a run that must not use them.
// OPENCODE_PERMISSION is merged over the permission rules of every config opencode reads, its
// built-in agents' included (checked on 1.18 with `opencode debug agent build`: both tools off), so
// the user's config files are never written. A value the agent's env already sets is kept, its
// rules for these two replaced; one that is not a JSON object is replaced whole (the deny wins).
const DENY = { webfetch: 'deny', websearch: 'deny' } as const;

/** The environment that denies opencode's network tools, over `env`'s OPENCODE_PERMISSION. */
export function opencodeNoNetwork(env: Readonly<Record<string, string | undefined>> | undefined): {
  OPENCODE_PERMISSION: string;
} {
  let prior: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(env?.OPENCODE_PERMISSION ?? '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      prior = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: opencode would ignore it anyway.
  }
  return { OPENCODE_PERMISSION: JSON.stringify({ ...prior, ...DENY }) };
}
