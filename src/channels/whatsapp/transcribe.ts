// Optional voice-note transcription: `media.transcribe.command` is an argv template with `{{path}}`
// (the file we saved under a generated absolute name, so it never reads as a flag); its stdout
// becomes the message text. Runs through the one spawn helper: no shell, timeout, capped output.
// Used by every channel that receives voice notes (WhatsApp, Telegram, Discord).
import type { Config } from '../../config/schema.js';
import type { Logger } from '../../log.js';
import type { Launcher } from '../../runner/launcher/client.js';
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

export interface TranscriberOptions {
  /** Where PATH, HOME and the rest come from (default: this process's environment). */
  env?: NodeJS.ProcessEnv;
  /**
   * The relay's launcher (`agents.launcher`): the transcriber starts from it, as the agents do, so a
   * voice note does not hold the relay's loop for a fork of the whole relay. A launcher that dies
   * mid-run is a failed transcription (logged, the message goes on without text), never a hang.
   */
  launcher?: Launcher;
}

export function makeTranscriber(
  cfg: Config['media']['transcribe'],
  log: Logger,
  opts: TranscriberOptions = {},
): ((path: string) => Promise<string | undefined>) | undefined {
  const { env = process.env, launcher } = opts;
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
      ...(launcher && { launcher }),
    });
    if (r.type === 'exited' && r.exitCode === 0 && r.stdout.trim()) return r.stdout.trim();
    log.warn(
      { result: r.type, exitCode: 'exitCode' in r ? r.exitCode : undefined },
      'voice note transcription failed',
    );
    return undefined;
  };
}
