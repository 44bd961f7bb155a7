// Per-run tool tokens: only the run's own, live token is accepted, and it names only its chat.
import { describe, expect, it } from 'vitest';
import { maskCredentials } from '../../src/log.js';
import { TOKEN_INVALID, TOKEN_MARGIN_MS, TOKEN_REFUSED, ToolTokens } from '../../src/tools/tokens.js';

const grant = { chat: 'console:local' as const, runKey: 'in:1', cwd: '/w' };

describe('ToolTokens', () => {
  it('accepts a minted token and gives its grant', () => {
    const t = new ToolTokens(() => 1000);
    const token = t.mint(grant, 60_000);
    const r = t.check(token);
    expect(r.ok && r.grant).toMatchObject({ ...grant, expiresAt: 1000 + 60_000 + TOKEN_MARGIN_MS, sent: 0 });
  });

  it.each([
    [
      'a token from another run, with the secret of this one',
      (a: string, b: string) => `${b.split('.')[0]}.${a.split('.')[1]}`,
    ],
    ['a changed secret', (a: string) => `${a.slice(0, -2)}${a.endsWith('AA') ? 'BB' : 'AA'}`],
    ['a truncated secret', (a: string) => a.slice(0, -5)],
    ['no dot', (a: string) => a.replace('.', '')],
    ['an empty string', () => ''],
  ])('refuses %s', (_name, forge) => {
    const t = new ToolTokens(() => 0);
    const a = t.mint(grant, 60_000);
    const b = t.mint({ ...grant, chat: 'twilio:+15550001111', runKey: 'in:2' }, 60_000);
    expect(t.check(forge(a, b))).toEqual({ ok: false, error: TOKEN_INVALID });
  });

  it('refuses non-strings and absurd lengths', () => {
    const t = new ToolTokens();
    for (const v of [undefined, 42, {}, 'x'.repeat(500)]) expect(t.check(v).ok).toBe(false);
  });

  it('refuses the token of an ended run (revoked) and an expired one, saying the run ended', () => {
    let now = 0;
    const t = new ToolTokens(() => now);
    const ended = t.mint(grant, 60_000);
    t.revoke(ended);
    expect(t.check(ended)).toEqual({ ok: false, error: TOKEN_REFUSED });
    // With another secret under the same id it is no token of that run: just not valid.
    expect(t.check(`${ended.split('.')[0]}.${'A'.repeat(43)}`)).toEqual({ ok: false, error: TOKEN_INVALID });
    const old = t.mint(grant, 60_000);
    now = 60_000 + TOKEN_MARGIN_MS;
    expect(t.check(old).ok).toBe(true);
    now += 1;
    expect(t.check(old)).toEqual({ ok: false, error: TOKEN_REFUSED });
    // Swept by the next mint, it is still told as ended for a margin, then forgotten: not valid.
    t.mint(grant, 60_000);
    expect(t.check(old)).toEqual({ ok: false, error: TOKEN_REFUSED });
    // The revoked one ended a margin ago (at 0): forgotten.
    expect(t.check(ended)).toEqual({ ok: false, error: TOKEN_INVALID });
    now += TOKEN_MARGIN_MS + 1;
    t.mint(grant, 60_000);
    expect(t.check(old)).toEqual({ ok: false, error: TOKEN_INVALID });
  });

  it('says a token that never existed is not valid, naming no run', () => {
    const t = new ToolTokens();
    t.mint(grant, 60_000);
    expect(t.check(`AAAAAAAAAAAA.${'B'.repeat(43)}`)).toEqual({ ok: false, error: TOKEN_INVALID });
    expect(TOKEN_INVALID).not.toMatch(/ended|run/);
  });

  it('lives as much longer as its run waited for a person, and stays masked that long', () => {
    let now = 0;
    let waited = 0;
    const t = new ToolTokens(() => now);
    const token = t.mint({ ...grant, personWaitMs: () => waited }, 60_000);
    waited = 5 * 60_000;
    now = 60_000 + TOKEN_MARGIN_MS + waited;
    // A mint sweeps: the waiting run's grant and its masking survive it.
    t.mint(grant, 1000);
    expect(t.check(token).ok).toBe(true);
    expect(maskCredentials(`token ${token}`)).not.toContain(token);
    now += 1;
    expect(t.check(token)).toEqual({ ok: false, error: TOKEN_REFUSED });
  });

  it('two runs get different tokens, and expired grants are swept when new ones are minted', () => {
    let now = 0;
    const t = new ToolTokens(() => now);
    const a = t.mint(grant, 1000);
    const b = t.mint(grant, 1000);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{43}$/);
    now = 10 * 60_000;
    t.mint(grant, 1000);
    expect(t.size).toBe(1);
  });

  it('a live token is masked in what reaches logs and chats, and forgotten a margin after its run', () => {
    let now = 0;
    const t = new ToolTokens(() => now);
    const token = t.mint(grant, 1000);
    expect(maskCredentials(`env: AGENTWIRE_TOOLS_TOKEN=${token}`)).toBe(
      'env: AGENTWIRE_TOOLS_TOKEN=[redacted]',
    );
    t.revoke(token);
    now = TOKEN_MARGIN_MS - 1;
    t.mint(grant, 1000);
    expect(maskCredentials(token)).toBe('[redacted]');
    now = TOKEN_MARGIN_MS + 1;
    t.mint(grant, 1000);
    expect(maskCredentials(token)).toBe(token);
  });

  it('mints skip the sweep until something is due, and the first mint after forgets what came due', () => {
    let now = 0;
    const t = new ToolTokens(() => now);
    const short = t.mint(grant, 1000); // expires at 1000 + margin, never revoked
    const long = t.mint(grant, 10 * TOKEN_MARGIN_MS);
    // Many mints before anything is due: both stay masked.
    for (now = 1; now <= 1000 + TOKEN_MARGIN_MS; now += 997) t.revoke(t.mint(grant, 10 * TOKEN_MARGIN_MS));
    now = 1000 + TOKEN_MARGIN_MS;
    t.mint(grant, 10 * TOKEN_MARGIN_MS);
    expect(maskCredentials(short)).toBe('[redacted]');
    // One ms later the short run's grant has expired: the next mint ends it (still told as ended)
    // and forgets its masking; the long run is untouched.
    now += 1;
    t.mint(grant, 10 * TOKEN_MARGIN_MS);
    expect(maskCredentials(short)).toBe(short);
    expect(t.check(short)).toEqual({ ok: false, error: TOKEN_REFUSED });
    expect(maskCredentials(long)).toBe('[redacted]');
    expect(t.check(long).ok).toBe(true);
    // A margin later the ended entry is forgotten too: the token is just not valid.
    now += TOKEN_MARGIN_MS + 1;
    t.mint(grant, 10 * TOKEN_MARGIN_MS);
    expect(t.check(short)).toEqual({ ok: false, error: TOKEN_INVALID });
  });

  it('known (enough to list tools): a live run token, a live process token bound or not; nothing else', () => {
    let now = 0;
    const t = new ToolTokens(() => now);
    const run = t.mint(grant, 1000);
    const proc = t.mintProcess('console:local');
    expect([t.known(run), t.known(proc)]).toEqual([true, true]);
    expect(t.known(`${run.slice(0, -2)}${run.endsWith('AA') ? 'BB' : 'AA'}`)).toBe(false);
    expect([t.known(''), t.known(42), t.known(undefined)]).toEqual([false, false, false]);
    t.closeProcess(proc);
    expect(t.known(proc)).toBe(false);
    t.revoke(run);
    expect(t.known(run)).toBe(false);
    const late = t.mint(grant, 1000);
    now = 1000 + TOKEN_MARGIN_MS + 1;
    expect(t.known(late)).toBe(false);
  });
});
