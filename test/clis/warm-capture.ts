// What the warm driver tests against the real CLIs (claude-warm, codex-warm, pi-warm, acp) share: a
// capture of every protocol message both ways and each step's result, written as a fixture when the
// suite's capture variable names a folder (the fixtures are captured, never typed), and the model
// requests a scenario saw.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { requests } from './harness.js';

export interface Capture {
  /** The argv the driver started, when it is only known once it starts (pi's session file). */
  argv?: string[];
  messages: { dir: 'in' | 'out'; msg: unknown }[];
  steps: { step: string; result: unknown }[];
}

export const capturing = (): Capture => ({ messages: [], steps: [] });

/** Awaits one step of a case and records its result. */
export async function step<T>(c: Capture, name: string, p: Promise<T>): Promise<T> {
  const result = await p;
  c.steps.push({ step: name, result });
  return result;
}

/** The body of the last model request in a scenario, as JSON text. */
export const lastBody = async (id: string): Promise<string> =>
  JSON.stringify((await requests(id)).at(-1)?.body ?? '');

/** `<package>@<version>` of an installed CLI, from its package.json under the CLIs folder. */
export function packageVersion(kind: string, pkg: string): string {
  const file = join(inject('clisDir'), kind, 'node_modules', pkg, 'package.json');
  return `${pkg}@${(JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version}`;
}

export interface SaveCapture {
  /** The capture folder (the suite's capture variable); nothing is written without one. */
  out: string | undefined;
  /** Where under it: `<kind>/warm/<file>.json`. */
  kind: string;
  file: string;
  version: () => string;
  argv: readonly string[];
  scenario: string;
  /** Also the scenario's model requests, as `<file>.requests.jsonl`. */
  withRequests?: boolean;
}

export async function saveCapture(c: Capture, o: SaveCapture): Promise<void> {
  if (!o.out) return;
  const dir = join(o.out, o.kind, 'warm');
  mkdirSync(dir, { recursive: true });
  const doc = {
    cli: o.kind,
    cli_version: o.version(),
    argv: o.argv,
    captured_at: new Date().toISOString(),
    network_isolated: process.env.AGENTWIRE_CLIS_NETNS === '1',
    scenario: o.scenario,
    steps: c.steps,
    messages: c.messages,
  };
  writeFileSync(join(dir, `${o.file}.json`), `${JSON.stringify(doc, null, 2)}\n`);
  if (!o.withRequests) return;
  const reqs = await requests(o.scenario);
  writeFileSync(
    join(dir, `${o.file}.requests.jsonl`),
    reqs.map((r) => JSON.stringify(r)).join('\n') + (reqs.length ? '\n' : ''),
  );
}
