// The agentwire program: every command. Loaded by bin.ts once the Node version is known to be good,
// which then calls `runMain`. Not run at import (no top-level await): in the bundled program
// (scripts/bundle-cli.mjs) a channel's module, imported when the relay starts it, shares chunks with
// this one, and an import of a module still evaluating its top-level await would wait for it, that
// is, for the relay to end.
import * as nodeModule from 'node:module';
import { Command, CommanderError } from 'commander';
import { resolvePaths } from '../config/paths.js';
import { stateFolderProblem } from '../config/state-folder.js';
import { openDirectRunner } from '../relay.js';
import { VERSION } from '../version.js';
import { register as registerAgent } from './agent.js';
import { register as registerBackup } from './backup.js';
import { register as registerChat } from './chat.js';
import { register as registerConfig } from './config.js';
import { ExitError } from './context.js';
import { register as registerDoctor } from './doctor.js';
import { register as registerHeartbeat } from './heartbeat.js';
import { register as registerLogin } from './login.js';
import { register as registerLogout } from './logout.js';
import { register as registerLogs } from './logs.js';
import { register as registerMcp } from './mcp-command.js';
import { register as registerRelay } from './relay.js';
import { register as registerSchedules } from './schedules.js';
import { register as registerSend } from './send.js';
import { register as registerService } from './service.js';
import { register as registerStatus } from './status.js';
import { register as registerTrigger } from './trigger.js';

// Every module of the program is loaded by now: its compiled code is written to the cache now
// (cli/own-compile-cache.ts) rather than at exit, which a relay stopped by SIGKILL never reaches.
nodeModule.flushCompileCache?.();

/** Parses `process.argv` and runs the command; its outcome is the process's exit code. */
export async function runMain(): Promise<void> {
  const program = new Command('agentwire')
    .description('Text your own coding agent over WhatsApp, Telegram or SMS (Twilio).')
    .version(VERSION, '-v, --version', 'print the agentwire version')
    .option('-c, --config <file>', 'config file (default: $AGENTWIRE_CONFIG or ~/.agentwire/agentwire.json5)')
    .showHelpAfterError()
    .exitOverride();

  registerConfig(program);
  registerAgent(program);
  registerRelay(program);
  registerChat(program);
  registerSend(program);
  registerTrigger(program);
  registerHeartbeat(program, { directRunner: (ctx) => openDirectRunner(ctx) });
  registerSchedules(program);
  registerStatus(program);
  registerDoctor(program);
  registerLogs(program);
  registerService(program);
  registerBackup(program);
  registerLogin(program);
  registerLogout(program);
  registerMcp(program);

  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof ExitError) {
      if (err.message) process.stderr.write(`${err.message}\n`);
      process.exitCode = err.code;
    } else if (err instanceof CommanderError) {
      // Usage errors exit 2; --help and --version exit 0. Commander already printed the message.
      process.exitCode = err.exitCode === 0 ? 0 : 2;
    } else {
      // A state folder that refuses writes is said in one sentence, not as a bare EROFS/EACCES.
      const problem = stateFolderProblem(err, resolvePaths(process.env).home);
      process.stderr.write(`agentwire: ${problem ?? (err as Error).message}\n`);
      process.exitCode = 1;
    }
  }
}
