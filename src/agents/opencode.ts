// opencode: `opencode run --format json …` with the prompt on stdin, resumed with `--session ses_…`.
// (An argv prompt containing a space reaches the model wrapped in literal quotes; stdin is verbatim.)
// opencode
// chooses ids (invented ones fail with "Session not found"); every event carries `sessionID`. Text
// comes whole per part; the reply is the text of the step that finished with reason "stop", and
// text of steps that ended in tool calls is progress. `reasoning` parts are never text.
import {
  assertSafeId,
  CONTINUED,
  classifyError,
  errorResult,
  jsonLine,
  message,
  num,
  obj,
  okResult,
  type Parsed,
  safeArg,
  str,
  textsOf,
  usageOf,
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
function messageStream(): (line: string) => StreamEvent[] {
  let texts: string[] = [];
  return (line) => {
    const ev = jsonLine(line);
    if (!ev) return [];
    if (ev.type === 'step_start') texts = [];
    if (ev.type === 'text') {
      const t = str(obj(ev.part)?.text);
      if (t) texts.push(t);
    }
    if (ev.type === 'tool_use') return CONTINUED;
    if (ev.type !== 'step_finish') return [];
    const done = message(texts.join('\n\n'));
    texts = [];
    return obj(ev.part)?.reason === 'tool-calls' ? [...done, ...CONTINUED] : done;
  };
}

function parse(out: RunOutput): Parsed {
  const next = messageStream();
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
    messages.push(...textsOf(next(line)));
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
