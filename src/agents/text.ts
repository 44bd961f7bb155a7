// Plain-text output (`--output-format text`, `-p` without json): the whole stdout is the reply on
// exit 0, and a failure otherwise. Used by `agentwire agent parse --format text` on captures made
// without structured output; the relay always runs the structured modes.
import { classifyError, errorResult, okResult, type Parsed } from './common.js';
import type { AgentSpec, RunOutput } from './types.js';

/**
 * The session id a CLI prints in text mode, so the next message can resume: the spec's
 * `textSessionId` line on stderr, where it has one. A CLI given a relay-chosen id has it already;
 * the others print none in text mode.
 */
export function textSessionId(spec: AgentSpec, stderr: string): string | undefined {
  return spec.textSessionId?.exec(stderr)?.[1];
}

export function parsePlainText(spec: AgentSpec, out: RunOutput): Parsed {
  const stdout = out.stdoutLines.join('\n');
  const sessionId = textSessionId(spec, out.stderr);
  if (out.exitCode !== 0) {
    // Some CLIs print their errors on stdout in text mode.
    const text = [out.stderr, stdout].filter((t) => t.trim()).join('\n');
    return errorResult(spec.displayName, classifyError(text) ?? 'exit', {
      detail: text,
      sessionId,
      exitCode: out.exitCode,
      signal: out.signal,
    });
  }
  if (!stdout.trim()) {
    return errorResult(spec.displayName, 'unparseable', {
      sessionId,
      exitCode: out.exitCode,
      signal: out.signal,
    });
  }
  return okResult([stdout], { sessionId, truncated: out.truncated });
}
