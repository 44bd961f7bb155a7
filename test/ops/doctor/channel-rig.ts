// `agentwire doctor --json` (the built binary) with one chat channel turned on against a fake
// provider running in this test's process: the rig the channels' doctor tests share. The binary
// runs asynchronously so the fake can answer it; the channel's token is checked never to be printed.
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { expect } from 'vitest';
import { CLAUDE_OK, fakeCli, setup } from './helpers.js';

const bin = new URL('../../../dist/cli/bin.js', import.meta.url).pathname;

export type Finding = { check: string; status: string; message: string; fix?: string };

export interface ChannelDoctor {
  /** The channel's config section, e.g. `telegram: {enabled: true, …}` (whatsapp is off, claude is a fake). */
  section: string;
  /** The channel's name: its findings are those whose check starts with it. */
  channel: string;
  /** The environment variable that holds the token, and the token. */
  tokenVar: string;
  token: string;
  /** The part of the token that must never appear in the output. */
  secret: string;
}

/** Runs doctor for one channel; resolves with the exit code and that channel's findings. */
export async function doctorChannel(o: ChannelDoctor): Promise<{ code: number | null; findings: Finding[] }> {
  const s = setup(`{whatsapp: {enabled: false}, console: {port: 0}, ${o.section}}`);
  fakeCli(s, 'claude', CLAUDE_OK);
  const r = await doctorJson({ ...s.env, [o.tokenVar]: o.token });
  expect(o.secret.length).toBeGreaterThan(3);
  expect(r.out).not.toContain(o.secret);
  const json = JSON.parse(r.out.slice(r.out.indexOf('{'))) as { ok: boolean; findings: Finding[] };
  return { code: r.code, findings: json.findings.filter((f) => f.check.startsWith(o.channel)) };
}

function doctorJson(env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'doctor', '--json'], {
      env: { ...env, PATH: `${env.PATH}:${dirname(process.execPath)}` },
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}
