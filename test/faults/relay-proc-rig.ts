// A real relay process for the warm-process rows: the built composition root with the test channel
// (test/e2e/fixtures/relay-test-channel.mjs: inbound as JSON lines on a unix socket, every sent item
// appended to a file), over a temp state folder. Needs `npm run build`. `close` ends what it started:
// the relay (SIGKILL if still up), then any pid the rows registered (`own`) that is still alive.
import { existsSync, readFileSync } from 'node:fs';
import type { InboundOutcome } from '../../src/channels/types.js';
import { alive, type Home, makeHome, type Proc, RELAY_SCRIPT, spawnNode, waitFor } from '../e2e/helpers.js';
import { deliverTo, relayFiles, sentOf } from '../e2e/test-relay.js';

export interface RelayProc {
  home: Home;
  proc: Proc;
  /** Items sent to `chat` (text items as their text), in order. */
  sent(chat?: string): string[];
  say(chat: string, text: string): Promise<InboundOutcome>;
  /** Pids to SIGKILL at close if still alive (only what the row's agent reported starting). */
  own(pid: number): void;
  close(): Promise<void>;
}

export async function startRelayProc(extra: Record<string, unknown>): Promise<RelayProc> {
  const home = makeHome(extra);
  const { sock, sent } = relayFiles(home);
  const proc = spawnNode([RELAY_SCRIPT, sock, sent], home.env);
  const owned: number[] = [];
  let seq = 0;
  const close = async () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) {
      proc.child.kill('SIGKILL');
      await proc.exit;
    }
    for (const pid of owned) if (alive(pid)) process.kill(pid, 'SIGKILL');
    home.cleanup();
  };
  if (!(await waitFor(() => proc.stdout().includes('ready'), 45_000))) {
    await close();
    throw new Error(`the relay did not start: ${proc.stderr()}`);
  }
  return {
    home,
    proc,
    sent: (chat) =>
      sentOf(home)
        .filter((r) => chat === undefined || r.chatId === chat)
        .map((r) => r.text),
    say: (chat, text) => deliverTo(home, text, `M${process.pid}-${++seq}`, chat),
    own: (pid) => owned.push(pid),
    close,
  };
}

/** The pid a detach.mjs sleeper wrote to `file`, once it is there. */
export async function sleeperPid(file: string, ms = 20_000): Promise<number> {
  if (!(await waitFor(() => existsSync(file), ms))) throw new Error(`no sleeper wrote ${file}`);
  return Number(readFileSync(file, 'utf8'));
}
