// Plain-text output (`--output-format text`, `-p` without json): the whole stdout is the reply on
// exit 0, and a failure otherwise. Used by `agentwire agent parse --format text` on captures made
// without structured output; the relay always runs the structured modes.
import { classifyError, errorResult, okResult, type Parsed } from './common.js';
import type { AgentKind, RunOutput } from './types.js';

export function parsePlainText(kind: AgentKind, out: RunOutput): Parsed {
  const stdout = out.stdoutLines.join('\n');
  if (out.exitCode !== 0) {
    // claude prints its errors on stdout in text mode.
    const text = [out.stderr, stdout].filter((t) => t.trim()).join('\n');
    return errorResult(kind, classifyError(text) ?? 'exit', {
      detail: text,
      exitCode: out.exitCode,
      signal: out.signal,
    });
  }
  if (!stdout.trim()) {
    return errorResult(kind, 'unparseable', { exitCode: out.exitCode, signal: out.signal });
  }
  return okResult([stdout], { truncated: out.truncated });
}
