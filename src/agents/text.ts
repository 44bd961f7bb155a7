// Plain-text output (`--output-format text`, `-p` without json): the whole stdout is the reply on
// exit 0, and a failure otherwise. Used by `agentwire agent parse --format text` on captures made
// without structured output; the relay always runs the structured modes.
import { classifyError, errorResult, okResult, type Parsed } from './common.js';
import type { AgentKind, RunOutput } from './types.js';

/**
 * The session id a CLI prints in text mode, so the next message can resume: codex writes a header
 * on stderr with `session id: <uuid>` (fixtures/agents/codex/new-text.json). claude's is the
 * `--session-id` it was given; the others print none in text mode.
 */
export function textSessionId(kind: AgentKind, stderr: string): string | undefined {
  if (kind !== 'codex') return undefined;
  return /^session id: ([0-9A-Za-z][0-9A-Za-z-]{7,})\s*$/m.exec(stderr)?.[1];
}

export function parsePlainText(kind: AgentKind, out: RunOutput): Parsed {
  const stdout = out.stdoutLines.join('\n');
  const sessionId = textSessionId(kind, out.stderr);
  if (out.exitCode !== 0) {
    // claude prints its errors on stdout in text mode.
    const text = [out.stderr, stdout].filter((t) => t.trim()).join('\n');
    return errorResult(kind, classifyError(text) ?? 'exit', {
      detail: text,
      sessionId,
      exitCode: out.exitCode,
      signal: out.signal,
    });
  }
  if (!stdout.trim()) {
    return errorResult(kind, 'unparseable', { sessionId, exitCode: out.exitCode, signal: out.signal });
  }
  return okResult([stdout], { sessionId, truncated: out.truncated });
}
