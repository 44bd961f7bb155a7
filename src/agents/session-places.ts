// Which agent sessions this machine keeps. A CLI keeps a session in files on the disk of the machine
// that ran it (claude's ~/.claude, codex's ~/.codex, …); when a chat moves to a relay process on
// another machine, the session id the store holds names files that machine does not have, and a
// resume there fails or, worse, resumes a stale copy. Each process notes the ids its runs used in its
// own agent state folder; an id it never noted was kept elsewhere, so the run starts a fresh session
// and the reply says once that the context was reset. With `store.sharedAgentState` the CLIs' files
// are on storage every machine reaches, and no place is checked.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SessionPlaces {
  /** True when a run on this machine used the session. */
  knows(id: string): boolean;
  /** A run here used the session (created or resumed it). */
  note(id: string): void;
}

export type ResumeChoice = 'resume' | 'fresh_moved';

/**
 * Pure: whether a stored session is resumed here. Without places (one machine, or the agents' state
 * shared) every session is; with them only one this machine used.
 */
export function resumeChoice(places: 'none' | 'checked', knownHere: boolean): ResumeChoice {
  if (places === 'none') return 'resume';
  return knownHere ? 'resume' : 'fresh_moved';
}

/** Places kept as empty files named by a hash of the id (a session id is not a safe file name). */
export function folderPlaces(dir: string): SessionPlaces {
  const file = (id: string) => join(dir, createHash('sha256').update(id).digest('hex').slice(0, 40));
  return {
    knows: (id) => existsSync(file(id)),
    note(id) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(file(id), '', { mode: 0o600 });
    },
  };
}
