// Live progress through the built relay (its own process) on one platform's fake (127.0.0.1), with the
// fake warm claude making a burst of tool calls (test/fixtures/fake-claude-stream.mjs "tools N ms"):
// the same checks for each platform that can edit, each test file giving its platform's rig.
// - 30 tool calls over about 10 s: ONE status message, at most 10 edits of it, ending on the summary;
//   the answer its own message, sent once.
// - SIGKILL mid-run: the next start finishes the dead run's status message "interrupted", the rerun
//   answers once.
// - progressEnd 'delete': the status message is deleted once the answer is out.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_TEXT } from '../../src/queue/progress-outbox.js';
import { alive, type Home, MAIN, makeHome, type Proc, spawnNode, waitFor } from './helpers.js';

const CLAUDE = join(import.meta.dirname, '..', 'fixtures', 'fake-claude-stream.mjs');
const SLOW = 90_000;

/** One platform's fake and how the relay meets it. */
export interface PlatformRig {
  /** The channel's config section, pointing at the fake. */
  section: Record<string, unknown>;
  /** The channel section's name (`slack`, `discord`). */
  name: string;
  /** The status line for the fake's `cat fN.txt` calls, as the platform's markup spells it. */
  statusLine: RegExp;
  env: Record<string, string>;
  /** Resolves once the relay is connected to the fake (`before`: the count of earlier connections). */
  connected(before: number): Promise<boolean>;
  connections(): number;
  /** A message from the allowed person in their direct chat. */
  push(text: string): void;
  /** Texts of the messages the bot posted to that chat, in order. */
  sends(): string[];
  /** Edits of the bot's messages in that chat: the message's id and its new text. */
  edits(): { id: string; text: string }[];
  /** Ids of the messages the bot deleted in that chat. */
  deletes(): string[];
  /** The id of the message that was posted `n`-th (0-based). */
  sentId(n: number): string | undefined;
  close(): Promise<void>;
}

export function progressSuite(title: string, open: () => Promise<PlatformRig>): void {
  let rig: PlatformRig | undefined;
  let home: Home | undefined;
  let state = '';
  const procs: Proc[] = [];

  const starts = () =>
    existsSync(join(state, 'starts.jsonl'))
      ? readFileSync(join(state, 'starts.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { pid: number })
      : [];

  afterEach(async () => {
    for (const p of procs.splice(0)) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGKILL');
        await p.exit;
      }
    }
    for (const s of starts()) if (alive(s.pid)) process.kill(s.pid, 'SIGKILL');
    await rig?.close();
    rig = undefined;
    home?.cleanup();
    home = undefined;
    if (state) rmSync(state, { recursive: true, force: true });
    state = '';
  });
  beforeAll(() => {
    expect(existsSync(MAIN), 'build first: npm run build').toBe(true);
  });

  async function setup(extra: Record<string, unknown> = {}): Promise<PlatformRig> {
    rig = await open();
    state = mkdtempSync(join(tmpdir(), 'aw-progress-e2e-'));
    // No `progress` key: the default ('status') is what is tested.
    home = makeHome({
      [rig.name]: { ...rig.section, ...extra },
      console: { enabled: false },
      agent: {
        kind: 'claude',
        mode: 'warm',
        command: [process.execPath, CLAUDE],
        env: { FAKE_CLAUDE_LOG: join(state, 'starts.jsonl') },
      },
    });
    return rig;
  }

  async function relay(r: PlatformRig): Promise<Proc> {
    const before = r.connections();
    const p = spawnNode([MAIN, 'relay'], { ...home!.env, ...r.env });
    procs.push(p);
    const up = await Promise.race([r.connected(before), p.exit.then(() => false)]);
    expect(up, `relay did not connect: ${p.stderr()}`).toBe(true);
    return p;
  }

  const summary = (n: number) => new RegExp(`^${n} tools, \\d+ s$`);

  describe(title, () => {
    it('30 tool calls over 10 s: one status message, at most 10 edits of it ending on the summary, one answer', {
      timeout: 2 * SLOW,
    }, async () => {
      const r = await setup();
      const p = await relay(r);
      r.push('tools 30 330');
      const answered = () => r.sends().filter((t) => t === 'Ran 30 tools.').length === 1;
      const summarised = () => r.edits().some((e) => summary(30).test(e.text));
      expect(await waitFor(() => answered() && summarised(), SLOW), p.stderr()).toBe(true);

      // The status message and the answer, each sent once.
      expect(r.sends()).toHaveLength(2);
      expect(r.sends()[0]).toMatch(r.statusLine);
      expect(r.sends()[1]).toBe('Ran 30 tools.');
      const statusId = r.sentId(0);
      expect(r.edits().every((e) => e.id === statusId)).toBe(true);
      expect(r.edits().length).toBeLessThanOrEqual(10);
      // Later calls were shown as they came, not only the first and the summary.
      expect(r.edits().length).toBeGreaterThanOrEqual(3);
      expect(r.edits().at(-1)?.text).toMatch(summary(30));
      expect(r.deletes()).toEqual([]);
      console.log(`${title}: ${r.edits().length} edits of the status message for 30 tool calls`);
    });

    it('SIGKILL mid-run: the status message ends "interrupted", the rerun answers once', {
      timeout: 2 * SLOW,
    }, async () => {
      const r = await setup();
      const first = await relay(r);
      r.push('tools 20 300');
      // Mid-run: the status message is out and has been edited at least once.
      expect(await waitFor(() => r.sends().length === 1 && r.edits().length >= 1, SLOW), first.stderr()).toBe(
        true,
      );
      first.child.kill('SIGKILL');
      await first.exit;
      const deadStatus = r.sentId(0);
      expect(r.sends().filter((t) => t.startsWith('Ran'))).toEqual([]);

      const second = await relay(r);
      const done = () => r.sends().filter((t) => t === 'Ran 20 tools.').length === 1;
      const rerunSummary = () => r.edits().some((e) => e.id !== deadStatus && summary(20).test(e.text));
      const interrupted = () => r.edits().some((e) => e.id === deadStatus && e.text === INTERRUPTED_TEXT);
      expect(await waitFor(() => done() && rerunSummary() && interrupted(), SLOW), second.stderr()).toBe(
        true,
      );

      const ofDead = r.edits().filter((e) => e.id === deadStatus);
      expect(ofDead.at(-1)?.text).toBe(INTERRUPTED_TEXT);
      expect(ofDead.filter((e) => e.text === INTERRUPTED_TEXT)).toHaveLength(1);
      // Sent: the dead run's status, the rerun's status, the answer once.
      expect(r.sends()).toHaveLength(3);
      expect(r.sends().filter((t) => t.startsWith('Ran'))).toEqual(['Ran 20 tools.']);
      const rerunEdits = r.edits().filter((e) => e.id !== deadStatus);
      expect(rerunEdits.length).toBeLessThanOrEqual(10);
      expect(rerunEdits.at(-1)?.text).toMatch(summary(20));
    });

    it("progressEnd 'delete': the status message is deleted, the answer stays", {
      timeout: 2 * SLOW,
    }, async () => {
      const r = await setup({ progressEnd: 'delete' });
      const p = await relay(r);
      r.push('tools 5 200');
      const answered = () => r.sends().includes('Ran 5 tools.');
      expect(await waitFor(() => answered() && r.deletes().length > 0, SLOW), p.stderr()).toBe(true);
      expect(r.sends()).toHaveLength(2);
      expect(r.deletes()).toEqual([r.sentId(0)]);
      expect(r.edits().some((e) => summary(5).test(e.text))).toBe(false);
    });
  });
}
