// One user script (tools.scripts.<name>) as a tool: its arguments checked against the configured
// JSON schema, then given to the program as JSON on stdin, never through a shell or as flags. Run by
// the one spawn helper: its own process group, killed (TERM, then KILL) on timeout, output capped.
import type { ValidateFunction } from 'ajv';
import { jsonSchemas } from '../config/json-schema.js';
import type { UserScriptConfig } from '../config/schema-user-tools.js';
import type { Launcher } from '../runner/launcher/client.js';
import { spawnProcess } from '../runner/spawn.js';
import { capText, MAX_RESULT_CHARS } from './user-policy.js';

/** What a script may print: more is cut (and the agent told), never buffered whole. */
const MAX_STDOUT_BYTES = 256 * 1024;
const MAX_STDERR_BYTES = 16 * 1024;

export type ScriptOutcome = { ok: true; text: string } | { ok: false; error: string };

export interface UserScript {
  readonly config: UserScriptConfig;
  run(args: Record<string, unknown>): Promise<ScriptOutcome>;
}

export function userScript(
  name: string,
  config: UserScriptConfig,
  env: Record<string, string>,
  /** The relay's launcher (`agents.launcher`): the script starts from it, as an agent does. */
  launcher?: Launcher,
): UserScript {
  const ajv = jsonSchemas();
  const check: ValidateFunction = ajv.compile(config.schema);
  const [file, ...fixed] = config.run;
  const timeoutMs = config.timeoutSeconds * 1000;
  return {
    config,
    async run(args) {
      if (!check(args)) return { ok: false, error: `invalid arguments: ${ajv.errorsText(check.errors)}` };
      const r = await spawnProcess({
        file: file as string,
        args: fixed,
        env,
        input: JSON.stringify(args),
        timeoutMs,
        maxStdoutBytes: MAX_STDOUT_BYTES,
        maxStderrBytes: MAX_STDERR_BYTES,
        ...(config.cwd !== undefined && { cwd: config.cwd }),
        ...(launcher && { launcher }),
      });
      switch (r.type) {
        case 'exited': {
          const cut = r.stdoutTruncated
            ? `\n[… cut: the script printed more than ${MAX_STDOUT_BYTES} bytes]`
            : '';
          if (r.exitCode === 0) return { ok: true, text: capText(r.stdout, MAX_RESULT_CHARS) + cut };
          const why = lastLine(r.stderr) || lastLine(r.stdout);
          const how = r.exitCode === null ? `was ended by ${r.signal}` : `exited with code ${r.exitCode}`;
          return { ok: false, error: `the script ${name} ${how}${why ? `: ${why}` : ''}` };
        }
        case 'timeout':
          return {
            ok: false,
            error: `the script ${name} took longer than ${config.timeoutSeconds} s and was stopped`,
          };
        case 'aborted':
          return { ok: false, error: `the script ${name} was stopped` };
        case 'not_found':
          return { ok: false, error: `the script's program ${file} was not found` };
        case 'spawn_failed':
          return { ok: false, error: `the script ${name} could not start (${r.message.slice(0, 200)})` };
      }
    },
  };
}

const lastLine = (text: string): string => text.trim().split('\n').at(-1)?.slice(0, 300) ?? '';
