// Per-test plumbing for the real-CLI suite: a scenario on the shared fake server, a fresh state
// folder prepared by the harness's setup.sh, and the explicit environment built from its output.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { AGENT_SPECS } from '../../src/agents/registry.js';
import type { AgentKind, AgentRequest, SessionRef } from '../../src/agents/types.js';

export interface Scenario {
  mode?: string;
  reply?: string;
  failCount?: number;
}

export interface FakeRequest {
  body?: unknown;
  path?: string;
}

let counter = 0;

/** A fresh scenario on the fake server; returns the base URL a CLI should use for it. */
export async function scenario(id: string, sc: Scenario): Promise<string> {
  const base = inject('fakeLlm');
  const r = await fetch(`${base}/_control/scenarios/${id}`, { method: 'PUT', body: JSON.stringify(sc) });
  if (!r.ok) throw new Error(`scenario ${id}: ${await r.text()}`);
  return `${base}/s/${id}`;
}

export async function requests(id: string): Promise<FakeRequest[]> {
  const r = await fetch(`${inject('fakeLlm')}/_control/requests?scenario=${id}`);
  return (await r.json()) as FakeRequest[];
}

/** A state folder (HOME, config, cwd) for one CLI, shared by the turns of one session. */
export function stateDir(kind: AgentKind): string {
  return mkdtempSync(join(tmpdir(), `aw-clis-${kind}-`));
}

/** The request for one turn: setup.sh's KEY=VALUE lines are the whole environment (plus a marker). */
export function turn(
  kind: AgentKind,
  state: string,
  baseUrl: string,
  prompt: string,
  session: SessionRef,
  timeoutMs: number,
): { request: AgentRequest; marker: string } {
  const out = execFileSync(join(inject('harness'), 'setup.sh'), [kind, state, baseUrl], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', AGENT_CLIS_DIR: inject('clisDir'), FAST_FAIL: '1' },
  });
  const env: Record<string, string> = { LANG: 'C.UTF-8' };
  for (const line of out.trim().split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) env[line.slice(0, i)] = line.slice(i + 1);
  }
  const marker = `aw-clis-${process.pid}-${++counter}`;
  env.AGENTWIRE_TEST_MARKER = marker;
  const request: AgentRequest = {
    prompt,
    session,
    command: [AGENT_SPECS[kind].program],
    cwd: join(state, 'work'),
    stateDir: join(state, 'agentwire'),
    timeoutMs,
    env,
  };
  return { request, marker };
}

/** Processes still running with this run's marker in their environment. */
export function leftovers(marker: string): number[] {
  const found: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const environ = readFileSync(`/proc/${p}/environ`, 'latin1');
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      if (environ.includes(`AGENTWIRE_TEST_MARKER=${marker}\0`) && !stat.includes(') Z '))
        found.push(Number(p));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

export async function waitNoLeftovers(marker: string): Promise<number[]> {
  let left = leftovers(marker);
  for (let i = 0; i < 50 && left.length > 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    left = leftovers(marker);
  }
  return left;
}
