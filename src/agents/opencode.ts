// opencode: `opencode run --format json …` with the prompt on stdin, resumed with `--session ses_…`.
// (An argv prompt containing a space reaches the model wrapped in literal quotes; stdin is verbatim.)
// opencode
// chooses ids (invented ones fail with "Session not found"); every event carries `sessionID`. Text
// comes whole per part; the reply is the text of the step that finished with reason "stop", and
// text of steps that ended in tool calls is progress. `reasoning` parts are never text.
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
  wordsTest,
} from './common.js';
import type { AgentSpec, BuildContext, Invocation, RunOutput, StreamEvent } from './types.js';

function build(ctx: BuildContext): Invocation {
  const argv = [...ctx.command, 'run', '--format', 'json'];
  if (ctx.session.type === 'resume') argv.push('--session', assertSafeId(ctx.session.id, 'session id'));
  if (ctx.model) argv.push('--model', safeArg(ctx.model, 'model'));
  if (ctx.thinking) argv.push('--variant', safeArg(ctx.thinking, 'thinking level'));
  return { argv, stdin: ctx.prompt };
}

// Texts of the current step; a step's text is a message once the step finishes, and a step that
// finished for tool calls (or a tool part) means the agent carries on.
// Lines that cannot be one of those events go by unread; a step start only matters when it drops
// texts of an unfinished step.
const STREAM_WORDS = wordsTest('text', 'tool_use', 'step_finish');
const STEP_START = wordsTest('step_start');

export function reducer(): Reducer {
  let texts: string[] = [];
  const event = (ev: Json): StreamEvent[] => {
    if (ev.type === 'step_start') texts = [];
    if (ev.type === 'text') {
      const t = str(obj(ev.part)?.text);
      if (t) texts.push(t);
    }
    if (ev.type === 'tool_use') return CONTINUED;
    if (ev.type !== 'step_finish') return NONE;
    const done = message(texts.join('\n\n'));
    texts = [];
    return obj(ev.part)?.reason === 'tool-calls' ? [...done, ...CONTINUED] : done;
  };
  return {
    event,
    line: (line) => {
      if (!STREAM_WORDS.test(line) && (texts.length === 0 || !STEP_START.test(line))) return NONE;
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
    const ev = jsonLine(line);
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
    return errorResult('opencode', classifyError(error.text, error.status) ?? 'exit', {
      ...base,
      detail: error.text,
    });
  }
  if (out.exitCode !== 0) {
    const text = out.stderr.replace(/\x1b\[[0-9;]*m/g, '').trim();
    return errorResult('opencode', classifyError(text) ?? 'exit', { ...base, detail: text });
  }
  if (stopped || messages.length > 0) {
    return okResult(messages, {
      sessionId,
      usage: usageOf(input, output, cost || undefined),
      truncated: out.truncated,
    });
  }
  return errorResult('opencode', 'unparseable', base);
}

export const opencodeSpec: AgentSpec = {
  kind: 'opencode',
  program: 'opencode',
  choosesSessionId: 'cli',
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
  build,
  messageStream,
  parse,
};
