// The voice-note transcriber (`media.transcribe.command`, used by WhatsApp, Telegram and Discord)
// started from the relay's launcher (agents.launcher), as the agents are: its parent is the
// launcher, not this process, and its stdout is still the text. Real child processes (a small node
// script) and a real launcher; no store.
import { afterAll, describe, expect, it } from 'vitest';
import { makeTranscriber } from '../../../src/channels/whatsapp/transcribe.js';
import { startLauncher } from '../../../src/runner/launcher/client.js';
import { memoryLog } from '../../queue/helpers.js';

const launcher = startLauncher();
afterAll(() => launcher.stop());

describe.runIf(process.platform === 'linux')('the transcriber from the launcher', () => {
  it("the transcriber's parent is the launcher, and its output is the text", async () => {
    const { log } = memoryLog();
    const transcribe = makeTranscriber(
      {
        command: [
          process.execPath,
          '-e',
          'process.stdout.write(`${process.ppid} heard ${process.argv[1]}`)',
          '{{path}}',
        ],
        timeoutSeconds: 30,
      },
      log,
      { launcher },
    );
    expect(await transcribe?.('/tmp/voice.ogg')).toBe(`${launcher.pid()} heard /tmp/voice.ogg`);
    expect(launcher.pid()).not.toBe(process.pid);
  });
});
