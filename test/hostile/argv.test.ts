// Message texts that look like flags or shell, through the agent layer the relay uses (agentResolver →
// runCommandReply → spawn) into a real child: test/fixtures/replay-cli.mjs, which records its argv and
// stdin and replays a real capture. For every one of the five agent specs: the text arrives on stdin
// byte for byte, argv is exactly what the same run with a harmless prompt would get (so no text ever
// becomes a flag or an argument), no shell runs it, and nothing throws.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLI_KINDS as AGENT_KINDS, getSpec } from '../../src/agents/registry.js';
import type { AgentKind, SessionRef } from '../../src/agents/types.js';
import { resolvePaths } from '../../src/config/paths.js';
import { configSchema } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { agentResolver } from '../../src/queue/adapters.js';
import type { ResolvedAgent } from '../../src/queue/ports.js';
import { FIXTURES_DIR } from '../agents/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

const REPLAY = join(import.meta.dirname, '..', 'fixtures', 'replay-cli.mjs');
const dir = tempDir('aw-hostile-argv-');
const work = join(dir, 'work');
mkdirSync(work);
// If anything ever ran the text through a shell, these commands would leave this file behind.
const canary = join(dir, 'pwned');

const record = (kind: AgentKind) => join(dir, `record-${kind}.json`);
const agents = Object.fromEntries(
  AGENT_KINDS.map((kind) => [
    kind,
    {
      command: [process.execPath, REPLAY],
      cwd: work,
      timeoutSeconds: 60,
      env: { REPLAY_CAPTURE: join(FIXTURES_DIR, kind, 'new.json'), REPLAY_RECORD: record(kind) },
    },
  ]),
);
const config = configSchema.parse({ agent: { kind: 'claude' }, agents });
const paths = resolvePaths({ AGENTWIRE_HOME: join(dir, 'home') });
const resolve = agentResolver(config, paths, { PATH: process.env.PATH }, createLogger({ level: 'silent' }));

/** A session each spec accepts, new or resumed, that makes its argv deterministic. */
function sessionFor(kind: AgentKind, resume: boolean): SessionRef {
  const uuid = '0b5e7c2a-1d3f-4a5b-8c9d-0e1f2a3b4c5d';
  if (kind === 'pi') return { type: resume ? 'resume' : 'new', id: join(dir, 'pi', `${uuid}.jsonl`) };
  if (!resume) return kind === 'claude' || kind === 'gemini' ? { type: 'new', id: uuid } : { type: 'new' };
  return { type: 'resume', id: kind === 'opencode' ? 'ses_3fA9bC' : uuid };
}

interface Recorded {
  argv: string[];
  stdin: string;
}

async function run(kind: AgentKind, prompt: string, resume: boolean): Promise<Recorded> {
  const resolved = resolve(kind);
  if (!resolved.ok) throw new Error(resolved.error);
  const agent: ResolvedAgent = resolved.agent;
  rmSync(record(kind), { force: true });
  const session = sessionFor(kind, resume);
  const result = await agent.run({ ...agent.base, prompt, session });
  // The capture is a successful reply: a text that broke the invocation would show here.
  expect(result.type, JSON.stringify(result)).toBe('ok');
  const rec = JSON.parse(readFileSync(record(kind), 'utf8')) as Recorded;
  // argv is what a harmless prompt gets: the text changed nothing in it.
  const harmless = getSpec(kind).build({ ...agent.base, prompt: 'hello', session });
  expect(rec.argv).toEqual(harmless.argv.slice(2));
  expect(Buffer.from(rec.stdin).equals(Buffer.from(prompt))).toBe(true);
  for (const a of rec.argv) if (prompt.trim().length > 3) expect(a.includes(prompt.trim())).toBe(false);
  return rec;
}

const NAMED = [
  '--resume x',
  'hi\n--resume x',
  '-p',
  '--dangerously-skip-permissions',
  '--yolo',
  '-c model_reasoning_effort="high"',
  `; touch ${canary}`,
  `$(touch ${canary})`,
  `\`touch ${canary}\``,
  '; rm -rf ~',
  '$(id)',
  `a\0b\0--resume\0x`,
  '\u202Egpj.exe --help\u2028-p',
  '-',
  '--',
  '"\'\\ $HOME %PATH% !! *',
  'ﷺ 👩‍👩‍👧 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ü\r\n\t',
];

describe('message texts that look like flags or shell', () => {
  // The five specs run side by side (each has its own record file); cases run in turn within one.
  it('named cases arrive verbatim on stdin with argv unchanged, for all five specs', async () => {
    await Promise.all(
      AGENT_KINDS.map(async (kind) => {
        for (const [i, text] of NAMED.entries()) await run(kind, text, i % 2 === 1);
      }),
    );
    expect(existsSync(canary)).toBe(false);
  });

  it('100,000 characters arrive whole on stdin (no E2BIG), for all five specs', async () => {
    const big = `--resume x ${'ab\u00e9🙂\n'.repeat(20_000)}`.slice(0, 100_000);
    await Promise.all(
      AGENT_KINDS.map(async (kind) => {
        const rec = await run(kind, big, false);
        expect(rec.stdin.length).toBe(100_000);
      }),
    );
  });

  it('arbitrary texts, any spec, new or resumed: stdin verbatim, argv unchanged', async () => {
    const flagish = fc
      .tuple(fc.constantFrom('-', '--', '---', '—', ''), fc.string({ maxLength: 20 }))
      .map(([d, s]) => d + s);
    const text = fc.oneof(
      flagish,
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.array(flagish, { maxLength: 5 }).map((a) => a.join('\n')),
      fc.constantFrom(...NAMED),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...AGENT_KINDS), text, fc.boolean(), async (kind, t, resume) => {
        await run(kind, t, resume);
      }),
      { numRuns: 15 },
    );
    expect(existsSync(canary)).toBe(false);
  });
});
