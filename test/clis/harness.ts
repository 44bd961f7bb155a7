// Per-test plumbing for the real-CLI suite: a scenario on the shared fake model server, a fresh
// state folder set up for one CLI (cli-env.ts), and the request log the server kept.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { getSpec } from '../../src/agents/registry.js';
import type { AgentKind, AgentRequest, SessionRef } from '../../src/agents/types.js';
import { type OnFinished, removeAfter } from '../helpers/tmp.js';
import { processesWithEnv } from '../support/procs.js';
import { cliEnv } from './cli-env.js';
import type { LoggedRequest } from './fake-model/log.js';
import type { Scenario } from './fake-model/scenario.js';

let counter = 0;

/** A fresh scenario on the fake server; returns the base URL a CLI should use for it. */
export async function scenario(id: string, sc: Partial<Scenario>): Promise<string> {
  const base = inject('fakeModel');
  const r = await fetch(`${base}/_control/scenarios/${id}`, { method: 'PUT', body: JSON.stringify(sc) });
  if (!r.ok) throw new Error(`scenario ${id}: ${await r.text()}`);
  return `${base}/s/${id}`;
}

/** The model calls the CLI made in one scenario, oldest first (token counts and the like left out). */
export async function requests(id: string): Promise<LoggedRequest[]> {
  const r = await fetch(`${inject('fakeModel')}/_control/requests?scenario=${id}`);
  return ((await r.json()) as LoggedRequest[]).filter((e) => e.kind === 'model');
}

/** The markers of the processes started on each state folder (see `marks`). */
const marked = new Map<string, Set<string>>();

/**
 * A state folder (HOME, config, cwd) for one CLI, shared by the turns of one session. It is removed
 * after the test (outside one, the file) once every process started on it has exited: a CLI may
 * leave a child that writes its files after the CLI itself ended (a normal exit kills nothing, see
 * docs/operations.md), and a folder removed under it comes back.
 */
export function stateDir(kind: AgentKind, finished?: OnFinished): string {
  const dir = mkdtempSync(join(tmpdir(), `aw-clis-${kind}-`));
  removeAfter(dir, () => settle(dir), finished);
  return dir;
}

/** Processes whose environment holds `marker` use the state folder `state`. */
export function marks(state: string, marker: string): void {
  const set = marked.get(state) ?? new Set<string>();
  set.add(marker);
  marked.set(state, set);
}

/**
 * Waits for the processes started on `state` to exit; any still running after the wait is killed
 * (it is this test's own, found by its marker) and named on stderr, so a CLI that leaves one shows.
 */
async function settle(state: string): Promise<void> {
  const markers = marked.get(state) ?? new Set<string>();
  marked.delete(state);
  for (const marker of markers) {
    const left = await waitNoLeftovers(marker);
    if (left.length === 0) continue;
    process.stderr.write(
      `test:clis: processes of ${marker} still running after their test: ${left.map(named).join('; ')}; killed\n`,
    );
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    const still = await waitNoLeftovers(marker);
    if (still.length > 0) throw new Error(`processes ${still.join(', ')} of ${marker} did not end`);
  }
}

function named(pid: number): string {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim().slice(0, 200)}`;
  } catch {
    return String(pid);
  }
}

/** The request for one turn: cliEnv's environment is the whole environment (plus a marker). */
export function turn(
  kind: AgentKind,
  state: string,
  baseUrl: string,
  prompt: string,
  session: SessionRef,
  timeoutMs: number,
): { request: AgentRequest; marker: string } {
  const env = cliEnv(kind, state, baseUrl, join(inject('clisDir'), 'bin'));
  const marker = `aw-clis-${process.pid}-${++counter}`;
  env.AGENTWIRE_TEST_MARKER = marker;
  marks(state, marker);
  const request: AgentRequest = {
    prompt,
    session,
    command: [getSpec(kind).program],
    cwd: join(state, 'work'),
    stateDir: join(state, 'agentwire'),
    timeoutMs,
    env,
  };
  return { request, marker };
}

/** Processes still running with this run's marker in their environment. */
export function leftovers(marker: string): number[] {
  return processesWithEnv(`AGENTWIRE_TEST_MARKER=${marker}`);
}

export async function waitNoLeftovers(marker: string): Promise<number[]> {
  let left = leftovers(marker);
  for (let i = 0; i < 50 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = leftovers(marker);
  }
  return left;
}
