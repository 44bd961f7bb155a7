// `agentwire logs [-f] [-n N]`: the relay's JSON log lines from the state folder, human-readable.
// Needs only the state folder, not a valid config, so it still helps when the config is broken.
import { join } from 'node:path';
import type { Command } from 'commander';
import { resolvePaths } from '../config/paths.js';
import { LOG_FILE_NAME } from '../log-rotate.js';
import { formatLogLine, levelOf } from '../ops/logs/format.js';
import { followLines, followStart, tailLines } from '../ops/logs/read.js';
import { ExitError, type GlobalOptions } from './context.js';

const LEVEL_VALUES: Record<string, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
};

interface LogsOptions {
  follow?: boolean;
  lines: string;
  json?: boolean;
  level?: string;
}

export function register(program: Command): void {
  program
    .command('logs')
    .description("print the relay's log (JSON lines in <state folder>/logs) human-readably")
    .option('-f, --follow', 'keep printing new lines, across rotations, until Ctrl-C')
    .option('-n, --lines <n>', 'how many recent lines to print first', '50')
    .option('--level <level>', 'only lines at this level or above (trace … fatal)')
    .option('--json', 'print the raw JSON lines')
    .action(async (opts: LogsOptions) => {
      const global = program.opts<GlobalOptions>();
      const paths = resolvePaths(process.env, global.config);
      const file = join(paths.logs, LOG_FILE_NAME);
      const n = Number(opts.lines);
      if (!Number.isInteger(n) || n < 0)
        throw new ExitError(2, `--lines must be a whole number, got ${opts.lines}`);
      const min = opts.level === undefined ? 0 : LEVEL_VALUES[opts.level];
      if (min === undefined)
        throw new ExitError(2, `--level must be one of ${Object.keys(LEVEL_VALUES).join(', ')}`);
      const wanted = (line: string): boolean => min === 0 || (levelOf(line) ?? 0) >= min;
      const print = (line: string): void => {
        if (wanted(line)) process.stdout.write(`${opts.json ? line : formatLogLine(line)}\n`);
      };
      const start = opts.follow ? followStart(file) : undefined;
      const recent = tailLines(file, n, wanted);
      if (recent.length === 0 && !opts.follow) {
        // `-n 0` asked for nothing; only an empty log, or a level that matched nothing, is worth a word.
        if (n > 0)
          process.stderr.write(
            min > 0 && tailLines(file, 1).length > 0
              ? `no log lines at ${opts.level} or above in ${file}\n`
              : `no log lines yet in ${file}\n`,
          );
        return;
      }
      for (const l of recent) print(l);
      if (!opts.follow) return;
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      await followLines(file, start, print, stop.signal);
    });
}
