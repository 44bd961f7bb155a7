// Optional voice-note transcription: `media.transcribe.command` is an argv template with `{{path}}`
// (the file we saved under a generated absolute name, so it never reads as a flag); its stdout
// becomes the message text. Runs through the one spawn helper: no shell, timeout, capped output.
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import { spawnProcess } from '../../runner/spawn.js';

const MAX_TRANSCRIPT_BYTES = 64 * 1024;

/** The environment a transcriber gets: enough to find programs and models, nothing else. */
function transcriberEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'XDG_CACHE_HOME']) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

export function makeTranscriber(
  cfg: Config['media']['transcribe'],
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): ((path: string) => Promise<string | undefined>) | undefined {
  const template = cfg.command;
  if (!template?.length) return undefined;
  return async (path) => {
    const [file, ...args] = template.map((a) => a.split('{{path}}').join(path));
    const r = await spawnProcess({
      file: file!,
      args,
      env: transcriberEnv(env),
      timeoutMs: cfg.timeoutSeconds * 1000,
      maxStdoutBytes: MAX_TRANSCRIPT_BYTES,
      maxStderrBytes: 16 * 1024,
    });
    if (r.type === 'exited' && r.exitCode === 0 && r.stdout.trim()) return r.stdout.trim();
    log.warn(
      { result: r.type, exitCode: 'exitCode' in r ? r.exitCode : undefined },
      'voice note transcription failed',
    );
    return undefined;
  };
}
