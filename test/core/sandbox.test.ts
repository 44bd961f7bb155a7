// bwrapArgv, row by row: what each plan becomes, and the plans it refuses (a bind that would show
// the relay's own files, a relative path, a working folder outside the sandbox).
import { describe, expect, it } from 'vitest';
import { bwrapArgv, bwrapError, type SandboxPlan, withChatMedia, within } from '../../src/core/sandbox.js';

const base: SandboxPlan = {
  type: 'bwrap',
  bwrap: '/usr/bin/bwrap',
  rw: ['/home/u/work'],
  ro: ['/usr'],
  roTry: [],
  links: [],
  tmpfs: [],
  hidden: ['/home/u/.agentwire', '/home/u/cfg.json5'],
  setEnv: {},
};
const cli = { file: 'claude', args: ['-p', '--'] };

/** The args between bwrap's fixed head and `--`. */
function mounts(plan: SandboxPlan, cwd?: string): string[] | string {
  const r = bwrapArgv(plan, cli, cwd);
  if (!r.ok) return r.error;
  const a = [...r.launch.args];
  const end = a.indexOf('--');
  return a.slice(a.indexOf('/tmp') + 1, end);
}

describe('bwrapArgv', () => {
  it('starts bwrap with every namespace but the network, bound to its parent, in a new session', () => {
    const r = bwrapArgv(base, cli, '/home/u/work');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.launch.file).toBe('/usr/bin/bwrap');
    expect(r.launch.args.slice(0, 10)).toEqual([
      '--unshare-all',
      '--share-net',
      '--die-with-parent',
      '--new-session',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--tmpfs',
      '/tmp',
    ]);
    // The CLI's own argv follows the end of bwrap's options untouched.
    expect(r.launch.args.slice(-4)).toEqual(['--', 'claude', '-p', '--']);
  });

  const rows: { name: string; plan: Partial<SandboxPlan>; cwd?: string; want: string[] | RegExp }[] = [
    {
      name: 'rw and ro binds, parents first whatever the order given',
      plan: {
        rw: ['/home/u/.agentwire/workspace', '/home/u/.claude'],
        ro: ['/usr', '/opt/node'],
        tmpfs: ['/home/u'],
      },
      want: [
        '--ro-bind',
        '/usr',
        '/usr',
        '--tmpfs',
        '/home/u',
        '--ro-bind',
        '/opt/node',
        '/opt/node',
        '--bind',
        '/home/u/.claude',
        '/home/u/.claude',
        '--bind',
        '/home/u/.agentwire/workspace',
        '/home/u/.agentwire/workspace',
      ],
    },
    {
      name: 'a tmpfs at the depth of a bind goes first (the bind is not hidden under it)',
      plan: {
        rw: ['/s/agents/pi', '/s/agents/pi/tool-runs/run.json'],
        ro: [],
        tmpfs: ['/s/agents/pi/tool-runs'],
        hidden: [],
      },
      want: [
        '--bind',
        '/s/agents/pi',
        '/s/agents/pi',
        '--tmpfs',
        '/s/agents/pi/tool-runs',
        '--bind',
        '/s/agents/pi/tool-runs/run.json',
        '/s/agents/pi/tool-runs/run.json',
      ],
    },
    {
      name: 'root links, optional /etc files and variables',
      plan: {
        rw: [],
        ro: ['/usr'],
        links: [{ path: '/bin', target: 'usr/bin' }],
        roTry: ['/etc/resolv.conf'],
        setEnv: { TMPDIR: '/tmp' },
      },
      want: [
        '--ro-bind',
        '/usr',
        '/usr',
        '--symlink',
        'usr/bin',
        '/bin',
        '--ro-bind-try',
        '/etc/resolv.conf',
        '/etc/resolv.conf',
        '--setenv',
        'TMPDIR',
        '/tmp',
      ],
    },
    {
      name: 'the working folder',
      plan: {},
      cwd: '/home/u/work/sub',
      want: [
        '--ro-bind',
        '/usr',
        '/usr',
        '--bind',
        '/home/u/work',
        '/home/u/work',
        '--chdir',
        '/home/u/work/sub',
      ],
    },
    {
      name: 'refused: binding the state folder itself',
      plan: { rw: ['/home/u/.agentwire'] },
      want: /holds \/home\/u\/.agentwire/,
    },
    {
      name: 'refused: a folder that holds the state folder (HOME)',
      plan: { ro: ['/usr', '/home/u'] },
      want: /would show \/home\/u,/,
    },
    {
      name: 'refused: a folder that holds the config',
      plan: { rw: ['/home'] },
      want: /holds \/home\/u\/.agentwire/,
    },
    { name: 'refused: the config file', plan: { roTry: ['/home/u/cfg.json5'] }, want: /cfg.json5/ },
    { name: 'refused: a relative path', plan: { rw: ['work'] }, want: /absolute paths, not "work"/ },
    {
      name: 'refused: a working folder outside the sandbox',
      plan: {},
      cwd: '/srv',
      want: /working folder \/srv is not inside/,
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const got = mounts({ ...base, ...row.plan }, row.cwd);
      if (row.want instanceof RegExp) expect(got).toMatch(row.want);
      else expect(got).toEqual(row.want);
    });
  }

  it('starts the CLI through a shell that says the sandbox is made, when asked (the warm start waits on it)', () => {
    const r = bwrapArgv(base, cli, undefined, { readyFd: 3 });
    expect(r.ok && r.launch.args.slice(-8)).toEqual([
      '--',
      '/bin/sh',
      '-c',
      'printf . >&3 && exec "$@" 3>&-',
      'sh',
      'claude',
      '-p',
      '--',
    ]);
  });

  it.each([
    { name: 'a lowered run (cold)', opts: { nice: 10 }, last: 'exec "$@"' },
    {
      name: 'a lowered warm start: one shell, lowering, then saying so',
      opts: { nice: 10, readyFd: 3 },
      last: 'printf . >&3 && exec "$@" 3>&-',
    },
  ])('lowers the CLI inside first, its session group and its nice, for $name', ({ opts, last }) => {
    const r = bwrapArgv(base, cli, undefined, opts);
    if (!r.ok) throw new Error(r.error);
    const at = r.launch.args.indexOf('--');
    const [sh, c, script, zero, ...rest] = r.launch.args.slice(at + 1);
    expect([sh, c, zero, ...rest]).toEqual(['/bin/sh', '-c', 'sh', 'claude', '-p', '--']);
    const text = script as string;
    expect(
      text.startsWith('[ -e /proc/self/autogroup ] && { echo 10 >/proc/self/autogroup 2>/dev/null || ('),
    ).toBe(true);
    // A retry in the background holds none of the run's pipes, the ready one included.
    expect(text).toContain(`</dev/null >/dev/null 2>&1${opts.readyFd ? ' 3>&-' : ''} & ); }; `);
    expect(text).toContain(
      '; [ "$n" -lt 10 ] 2>/dev/null && command -v nice >/dev/null && set -- nice -n $((10 - n)) "$@"; ',
    );
    expect(text.endsWith(`; ${last}`)).toBe(true);
  });
});

describe('withChatMedia', () => {
  it('adds the one chat folder read-only, once, and nothing else', () => {
    const dir = '/home/u/.agentwire/media/inbound/telegram_42-abc';
    const p = withChatMedia(base, dir);
    expect(p.ro).toEqual(['/usr', dir]);
    expect(p.rw).toEqual(base.rw);
    expect(withChatMedia(p, dir).ro).toEqual(['/usr', dir]);
    expect(base.ro).toEqual(['/usr']);
    expect(mounts(p)).toContain(dir);
    expect(mounts(p)).not.toContain('/home/u/.agentwire/media/inbound');
  });
});

describe('within and bwrapError', () => {
  it.each([
    ['/a/b', '/a', true],
    ['/a', '/a', true],
    ['/a/', '/a', true],
    ['/ab', '/a', false],
    ['/a', '/a/b', false],
    ['/a/b/../c', '/a', true],
  ])('within(%s, %s) is %s', (inner, outer, want) => {
    expect(within(inner, outer)).toBe(want);
  });
  it('finds bwrap own line among the output', () => {
    expect(bwrapError('x\nbwrap: No permissions to creating new namespace\n')).toBe(
      'bwrap: No permissions to creating new namespace',
    );
    expect(bwrapError('Error: bwrap: is a word the CLI said')).toBeUndefined();
  });
});
