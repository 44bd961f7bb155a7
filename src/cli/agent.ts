// `agentwire agent run | argv | parse`: run the configured CLI once, show the argv that would run,
// or parse a captured stdout. For people checking their setup, and for bug reports.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { AGENT_KINDS, getSpec, isAgentKind } from '../agents/registry.js';
import { agentRequest, newSession, resolveAgent } from '../agents/resolve.js';
import { parsePlainText } from '../agents/text.js';
import type { AgentKind, AgentResult, SessionRef } from '../agents/types.js';
import { linesOf } from '../runner/lines.js';
import { runCommandReply } from '../runner/run-command-reply.js';
import { ExitError, type GlobalOptions, loadContext } from './context.js';
import { registerWarmReset } from './warm-reset.js';

interface SessionOptions {
  kind?: string;
  session?: string;
  new?: boolean;
}

function kindOf(value: string | undefined): AgentKind | undefined {
  if (value === undefined) return undefined;
  if (!isAgentKind(value))
    throw new ExitError(2, `unknown agent kind "${value}" (${AGENT_KINDS.join(', ')})`);
  return value;
}

function sessionOf(opts: SessionOptions, kind: AgentKind): SessionRef {
  if (opts.session !== undefined && opts.new)
    throw new ExitError(2, 'use either --session or --new, not both');
  return opts.session !== undefined ? { type: 'resume', id: opts.session } : newSession(getSpec(kind));
}

export function register(program: Command): void {
  const cmd = program.command('agent').description('run, inspect or parse the agent CLI');
  registerWarmReset(cmd, program);

  cmd
    .command('run')
    .description('run the agent once and print its reply')
    .argument('<prompt...>', 'what to ask')
    .option('--kind <kind>', 'which CLI (default: agent.kind)')
    .option('--session <id>', 'resume this session')
    .option('--new', 'start a new session (the default)')
    .option('--json', 'print the whole AgentResult as JSON')
    .action(async (words: string[], opts: SessionOptions & { json?: boolean }) => {
      const ctx = loadContext(program.opts<GlobalOptions>());
      const agent = resolveAgent(ctx.config, ctx.paths, kindOf(opts.kind), { env: ctx.env });
      for (const w of agent.warnings) process.stderr.write(`warning: ${w}\n`);
      const ac = new AbortController();
      const stop = () => ac.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const request = agentRequest(agent, words.join(' '), sessionOf(opts, agent.kind), {
        signal: ac.signal,
        ...(opts.json ? {} : { onProgress: (t: string) => process.stderr.write(`… ${t}\n`) }),
      });
      const result = await runCommandReply(agent.spec, request);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (opts.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      else printResult(result);
      if (result.type === 'error') process.exitCode = 1;
    });

  cmd
    .command('argv')
    .description('print the argv that would run, as a JSON array (the prompt goes on stdin)')
    .option('--kind <kind>', 'which CLI (default: agent.kind)')
    .option('--session <id>', 'resume this session')
    .option('--new', 'start a new session (the default)')
    .option('--prompt <text>', 'the prompt (sent on stdin, so it never appears in argv)', 'hello')
    .action((opts: SessionOptions & { prompt: string }) => {
      const ctx = loadContext(program.opts<GlobalOptions>());
      // Like `agent run`: no --kind means the kind the relay would run (agent.kind).
      const agent = resolveAgent(ctx.config, ctx.paths, kindOf(opts.kind), {
        env: ctx.env,
        createDirs: false,
      });
      let argv: string[];
      try {
        argv = agent.spec.build(agentRequest(agent, opts.prompt, sessionOf(opts, agent.kind))).argv;
      } catch (err) {
        throw new ExitError(2, (err as Error).message);
      }
      process.stdout.write(`${JSON.stringify(argv)}\n`);
    });

  cmd
    .command('parse')
    .description('parse a captured stdout (FILE or - for stdin) and print the AgentResult as JSON')
    .argument('[file]', 'captured stdout; - or nothing reads stdin')
    .option('--kind <kind>', 'which CLI printed it (default: agent.kind)')
    .option('--format <format>', 'json, stream-json or text', 'stream-json')
    .option('--exit-code <n>', 'the exit code the CLI had', '0')
    .option('--stderr <file>', 'its captured stderr')
    .action(
      async (
        file: string | undefined,
        opts: { kind?: string; format: string; exitCode: string; stderr?: string },
      ) => {
        const kind = kindOf(opts.kind ?? loadContext(program.opts<GlobalOptions>()).config.agent.kind)!;
        if (!['json', 'stream-json', 'text'].includes(opts.format)) {
          throw new ExitError(2, `unknown format "${opts.format}" (json, stream-json or text)`);
        }
        if (!/^-?\d+$/.test(opts.exitCode)) throw new ExitError(2, `--exit-code must be a number`);
        const stdout = await readInput(file);
        const stderr = opts.stderr !== undefined ? await readInput(opts.stderr) : '';
        const out = {
          stdoutLines: linesOf(stdout),
          stderr,
          exitCode: Number(opts.exitCode),
          signal: null,
          truncated: false,
        };
        const parsed = opts.format === 'text' ? parsePlainText(getSpec(kind), out) : getSpec(kind).parse(out);
        const result: AgentResult = { ...parsed, durationMs: 0 };
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      },
    );
}

async function readInput(file: string | undefined): Promise<string> {
  try {
    if (file !== undefined && file !== '-') return readFileSync(file, 'utf8');
    // Streamed: a synchronous read of a non-blocking pipe fails with EAGAIN.
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    throw new ExitError(2, `cannot read ${file ?? 'stdin'}: ${(err as Error).message}`);
  }
}

function printResult(r: AgentResult): void {
  if (r.type === 'error') {
    process.stderr.write(`${r.kind}: ${r.message}\n`);
    if (r.detail) process.stderr.write(`detail: ${r.detail}\n`);
    if (r.sessionId) process.stderr.write(`session: ${r.sessionId}\n`);
    return;
  }
  if (r.text) process.stdout.write(`${r.text}\n`);
  for (const m of r.media) process.stdout.write(`MEDIA: ${m}\n`);
  if (r.sessionId) process.stderr.write(`session: ${r.sessionId}\n`);
  if (r.truncated) process.stderr.write('warning: output was cut at the byte cap\n');
}
