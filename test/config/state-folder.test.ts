import { describe, expect, it } from 'vitest';
import { stateFolderProblem, type WriteProbe } from '../../src/config/state-folder.js';

const HOME = '/srv/aw';
const err = (code: string, path?: string) => Object.assign(new Error(`${code}: …`), { code, path });
/** A file system where each listed folder answers access(W_OK) with that code; others are writable. */
const fs =
  (refusing: Record<string, string>): WriteProbe =>
  (dir) =>
    refusing[dir];

describe('stateFolderProblem', () => {
  it.each<[string, Error, Record<string, string>, string | undefined]>([
    [
      'the whole state folder on a read-only mount (chmod of logs)',
      err('EROFS', `${HOME}/logs`),
      { [`${HOME}/logs`]: 'EROFS', [HOME]: 'EROFS' },
      `The state folder ${HOME} is on a read-only file system (EROFS), so agentwire cannot keep its database and logs there: remount it read-write, or set AGENTWIRE_HOME to a writable folder.`,
    ],
    [
      'a recursive mkdir on a read-only mount reports ENOENT',
      err('ENOENT', `${HOME}/logs`),
      { [`${HOME}/logs`]: 'ENOENT', [HOME]: 'EROFS' },
      `The state folder ${HOME} is on a read-only file system (EROFS), so agentwire cannot keep its database and logs there: remount it read-write, or set AGENTWIRE_HOME to a writable folder.`,
    ],
    [
      'only a subfolder is read-only',
      err('EROFS', `${HOME}/logs`),
      { [`${HOME}/logs`]: 'EROFS' },
      `${HOME}/logs in the state folder ${HOME} is on a read-only file system (EROFS), so agentwire cannot keep its database and logs there: remount it read-write, or set AGENTWIRE_HOME to a writable folder.`,
    ],
    [
      'a state folder owned by another user',
      err('EACCES', `${HOME}/agentwire.db`),
      { [`${HOME}/agentwire.db`]: 'ENOENT', [HOME]: 'EACCES' },
      `The state folder ${HOME} is not writable by this user (EACCES), so agentwire cannot keep its database and logs there: give this user write access (chown or chmod), or set AGENTWIRE_HOME to a writable folder.`,
    ],
    [
      'a state folder still to be made under a read-only parent',
      err('ENOENT', HOME),
      { [HOME]: 'ENOENT', '/srv': 'EROFS' },
      `/srv, where the state folder ${HOME} is to be made, is on a read-only file system (EROFS), so agentwire cannot keep its database and logs there: remount it read-write, or set AGENTWIRE_HOME to a writable folder.`,
    ],
    [
      'EPERM on a file whose folder is writable still names the file',
      err('EPERM', `${HOME}/relay.sock`),
      {},
      `${HOME}/relay.sock in the state folder ${HOME} is not writable by this user (EPERM), so agentwire cannot keep its database and logs there: give this user write access (chown or chmod), or set AGENTWIRE_HOME to a writable folder.`,
    ],
    [
      'a missing file in a writable folder is not a folder problem',
      err('ENOENT', `${HOME}/x`),
      {},
      undefined,
    ],
    ['outside the state folder (a missing CLI)', err('ENOENT', '/usr/bin/claude'), {}, undefined],
    ['not a file system error', err('SQLITE_FULL'), { [HOME]: 'EROFS' }, undefined],
  ])('%s', (_what, e, refusing, expected) =>
    expect(stateFolderProblem(e, HOME, fs(refusing))).toBe(expected),
  );
});
