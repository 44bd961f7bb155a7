// The relay's watchdog is started again when it dies, and the new one knows every live group.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { reaperKeeper } from '../../src/runner/reaper-keeper.js';
import { alive, waitFor } from '../e2e/helpers.js';

describe.skipIf(process.platform === 'win32')('reaperKeeper', () => {
  it('restarts a killed watchdog, tells it the live groups, and that one still reaps them', async () => {
    const restarts: (number | undefined)[] = [];
    const keeper = reaperKeeper(({ pid }) => restarts.push(pid));
    expect(keeper.pid()).toBeUndefined(); // nothing started before the first group
    const agent = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    const gone = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    try {
      keeper.watch(agent.pid as number);
      keeper.watch(gone.pid as number);
      keeper.forget(gone.pid as number);
      const first = keeper.pid() as number;
      expect(alive(first)).toBe(true);
      process.kill(first, 'SIGKILL');
      expect(await waitFor(() => restarts.length === 1)).toBe(true);
      const second = keeper.pid() as number;
      expect(second).toBe(restarts[0]);
      expect(second).not.toBe(first);
      expect(alive(agent.pid as number)).toBe(true);
      // Closing the watchdog is what a dying relay does to it: every group still listed is killed.
      keeper.close();
      expect(await waitFor(() => !alive(agent.pid as number))).toBe(true);
      // A group the relay said had ended is never signalled.
      expect(alive(gone.pid as number)).toBe(true);
    } finally {
      for (const c of [agent, gone]) if (c.pid && alive(c.pid)) process.kill(-c.pid, 'SIGKILL');
    }
  });
});
