// A sixth CLI, written the way src/agents/<kind>.ts files are: data plus build, messageStream and
// parse. test/agents/sixth-cli.test.ts registers it with one more entry in the registry's list and
// nothing else, and checks that config, doctor, `agentwire agent`, /agent and a run all take it.
import {
  CONTINUED,
  classifyError,
  errorResult,
  jsonLine,
  message,
  NONE,
  okResult,
  type Parsed,
  sessionArgs,
  str,
} from '../../../src/agents/common.js';
import type {
  AgentSpec,
  BuildContext,
  Invocation,
  RunOutput,
  StreamEvent,
} from '../../../src/agents/types.js';

const NAME = 'Parrot';
const SESSION: AgentSpec['session'] = { newFlag: '--session-id', resumeFlag: '--resume' };

function build(ctx: BuildContext): Invocation {
  const argv = [...ctx.command, '--json', ...sessionArgs(SESSION, ctx.session)];
  return { argv, stdin: ctx.prompt, ...(ctx.session.id ? { sessionId: ctx.session.id } : {}) };
}

function messageStream(): (line: string) => StreamEvent[] {
  return (line) => {
    const ev = jsonLine(line);
    if (ev?.type === 'say') return message(str(ev.text) ?? '');
    return ev?.type === 'tool' ? CONTINUED : NONE;
  };
}

function parse(out: RunOutput): Parsed {
  const next = messageStream();
  const messages: string[] = [];
  let sessionId: string | undefined;
  for (const line of out.stdoutLines) {
    const ev = jsonLine(line);
    if (ev?.type === 'session') sessionId = str(ev.id);
    for (const e of next(line)) if (e.type === 'message') messages.push(e.text);
  }
  const base = { sessionId, exitCode: out.exitCode, signal: out.signal };
  if (out.exitCode !== 0)
    return errorResult(NAME, classifyError(out.stderr) ?? 'exit', { ...base, detail: out.stderr });
  if (messages.length === 0) return errorResult(NAME, 'unparseable', base);
  return okResult(messages, { sessionId, truncated: out.truncated });
}

export const parrotSpec: AgentSpec = {
  kind: 'parrot',
  displayName: NAME,
  program: 'parrot',
  install: { npm: 'parrot-cli', hint: 'npm install -g parrot-cli' },
  versionArgs: ['--version'],
  docsUrl: 'https://parrot.example/docs',
  session: SESSION,
  nestedEnv: ['PARROT_NESTED'],
  choosesSessionId: 'relay-uuid',
  passEnv: ['PARROT_KEY'],
  thinkingLevels: ['low', 'high'],
  build,
  messageStream,
  parse,
};
