// Whether a process is an agent's run: its environment, then its parents' up the /proc chain, read
// from a /proc laid out in a temp folder (environ and stat files as Linux writes them).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { markedInChain } from '../../src/control/caller.js';

const proc = mkdtempSync(join(tmpdir(), 'aw-proc-'));
afterAll(() => rmSync(proc, { recursive: true, force: true }));

/** A process: its parent, and its environment (undefined: unreadable, as another user's). */
function fake(pid: number, ppid: number, env?: string[], comm = 'sh') {
  mkdirSync(join(proc, String(pid)), { recursive: true });
  writeFileSync(join(proc, String(pid), 'stat'), `${pid} (${comm}) S ${ppid} ${pid} ${pid} 0 -1\n`);
  if (env) writeFileSync(join(proc, String(pid), 'environ'), `${env.join('\0')}\0`);
}

// 100 ← 200 (agent, marked) ← 300 (shell, mark removed) ← 400 (its child)
fake(100, 1, ['HOME=/home/me']);
fake(200, 100, ['PATH=/bin', 'AGENTWIRE_RUN=run-a']);
fake(300, 200, ['PATH=/bin'], 'a (weird) name');
fake(400, 300, ['XAGENTWIRE_RUN=not-it', 'AGENTWIRE_RUNX=no']);
// A terminal: 500 ← 600, and 700 whose parent is unreadable (root's), above it 500.
fake(500, 1, ['TERM=xterm']);
fake(600, 500, ['TERM=xterm']);
fake(800, 500);
fake(700, 800, ['TERM=xterm']);
// A relay started inside another agentwire's run: its own mark is not one of its runs.
fake(900, 1, ['AGENTWIRE_RUN=outer']);
fake(901, 900, ['AGENTWIRE_RUN=outer']);
// A loop (a pid reused while we read): the walk ends.
fake(1000, 1001, ['A=1']);
fake(1001, 1000, ['A=1']);

describe('markedInChain', () => {
  it.each([
    ['the agent itself', 200, undefined, 200],
    ['a shell the agent started, the mark removed from its own environment', 300, undefined, 200],
    ['a grandchild, with look-alike names only', 400, undefined, 200],
    ["a person's terminal", 600, undefined, undefined],
    ["past a parent we cannot read (another user's)", 700, undefined, undefined],
    ["the relay's own inherited mark is not a run's", 901, 'outer', undefined],
    ['an inherited mark other than the relay own', 901, 'mine', 901],
    ['a loop in the chain ends', 1000, undefined, undefined],
    ['a process that is gone', 4242, undefined, undefined],
  ])('%s', async (_name, pid, ownMark, want) => {
    expect(await markedInChain(pid, proc, ownMark)).toBe(want);
  });
});
