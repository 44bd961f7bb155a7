// Starts the real-CLI suite's fake model server in a process of its own (fake-model-proc.mjs), so
// its CPU is not counted as the relay's, and sets scenarios on it over its control route.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export async function startFakeModelProc() {
  const child = spawn(
    process.execPath,
    ['--import', join(here, 'ts-hook.mjs'), join(here, 'fake-model-proc.mjs')],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const url = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(String(d).trim()));
    child.once('exit', (code) => reject(new Error(`fake model exited ${code}`)));
  });
  /** Sets scenario `id`; resolves with the base URL a CLI is given for it. */
  const put = async (id, sc) => {
    const r = await fetch(`${url}/_control/scenarios/${id}`, { method: 'PUT', body: JSON.stringify(sc) });
    if (!r.ok) throw new Error(`scenario ${id}: ${await r.text()}`);
    return `${url}/s/${id}`;
  };
  /** How many model requests scenario `id` has had. */
  const requests = async (id) => {
    const r = await fetch(`${url}/_control/requests?scenario=${id}`);
    return (await r.json()).length;
  };
  return { put, requests, close: () => child.stdin.end() };
}
