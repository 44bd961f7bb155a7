// Which sessions this machine keeps (agents/session-places.ts): a session used here is resumed, one
// kept on another machine starts fresh.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderPlaces, resumeChoice } from '../../src/agents/session-places.js';
import { tempDir } from '../helpers/tmp.js';

describe('resumeChoice', () => {
  const rows: [string, 'none' | 'checked', boolean, string][] = [
    ['one machine (no places): resume', 'none', false, 'resume'],
    ['one machine, known anyway: resume', 'none', true, 'resume'],
    ['used here: resume', 'checked', true, 'resume'],
    ['kept on another machine: fresh', 'checked', false, 'fresh_moved'],
  ];
  it.each(rows)('%s', (_name, places, known, want) => {
    expect(resumeChoice(places, known)).toBe(want);
  });
});

describe('folderPlaces', () => {
  it('knows an id once noted, in a private folder, by a name that is not the id', () => {
    const dir = join(tempDir('aw-places-'), 'sessions-here');
    const places = folderPlaces(dir);
    const id = '../9f0e8d7c-6b5a/4c3d';
    expect(places.knows(id)).toBe(false);
    places.note(id);
    expect(places.knows(id)).toBe(true);
    expect(places.knows('another')).toBe(false);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [name] = readdirSync(dir);
    expect(name).toMatch(/^[0-9a-f]{40}$/);
    expect(statSync(join(dir, name ?? '')).mode & 0o777).toBe(0o600);
    // A second process on the same state folder (a restart) knows it too.
    expect(folderPlaces(dir).knows(id)).toBe(true);
  });
});
