import { afterEach, describe, expect, it } from 'vitest';
import {
  clearSession,
  GLOBAL_SCOPE,
  getChatSettings,
  getSession,
  type SessionRow,
  saveSession,
  scopeFor,
  sessionState,
  setChatSettings,
} from '../../src/store/sqlite/sessions.js';
import { tempDb } from './helpers.js';

let t: ReturnType<typeof tempDb>;
afterEach(() => t?.cleanup());

describe('sessionState', () => {
  const row: SessionRow = { sessionId: 's', createdAt: 0, lastUsedAt: 1_000_000, confirmed: true };
  it.each<[SessionRow | undefined, number, number, string]>([
    [undefined, 0, 60, 'none'],
    [row, 1_000_000 + 59 * 60_000, 60, 'active'],
    [row, 1_000_000 + 60 * 60_000, 60, 'expired'],
    [row, 1_000_000 + 10 ** 12, 0, 'active'],
  ])('%j at %d with %d min → %s', (r, now, idle, type) => {
    expect(sessionState(r, now, idle).type).toBe(type);
  });
});

describe('sessions', () => {
  it('keeps one session per scope and agent kind', () => {
    t = tempDb();
    saveSession(t.db, 'console:local', 'claude', 'c1', 100);
    saveSession(t.db, 'console:local', 'codex', 'x1', 100);
    saveSession(t.db, 'twilio:+1', 'claude', 'c2', 100);
    expect(getSession(t.db, 'console:local', 'claude')?.sessionId).toBe('c1');
    expect(getSession(t.db, 'console:local', 'codex')?.sessionId).toBe('x1');
    expect(getSession(t.db, 'twilio:+1', 'claude')?.sessionId).toBe('c2');
    expect(clearSession(t.db, 'console:local', 'claude')).toBe(1);
    expect(getSession(t.db, 'console:local', 'claude')).toBeUndefined();
    expect(getSession(t.db, 'twilio:+1', 'claude')?.sessionId).toBe('c2');
  });

  it('touches the idle clock unless told not to, and a new id restarts the age', () => {
    t = tempDb();
    saveSession(t.db, 'console:local', 'claude', 's1', 100);
    saveSession(t.db, 'console:local', 'claude', 's1', 200, false);
    expect(getSession(t.db, 'console:local', 'claude')).toEqual({
      sessionId: 's1',
      createdAt: 100,
      lastUsedAt: 100,
      confirmed: true,
    });
    saveSession(t.db, 'console:local', 'claude', 's1', 300);
    expect(getSession(t.db, 'console:local', 'claude')).toEqual({
      sessionId: 's1',
      createdAt: 100,
      lastUsedAt: 300,
      confirmed: true,
    });
    saveSession(t.db, 'console:local', 'claude', 's2', 400);
    expect(getSession(t.db, 'console:local', 'claude')).toEqual({
      sessionId: 's2',
      createdAt: 400,
      lastUsedAt: 400,
      confirmed: true,
    });
  });

  it('a session is confirmed once a run in it succeeded, and a later failure does not unconfirm it', () => {
    t = tempDb();
    const confirmed = () => getSession(t.db, 'console:local', 'claude')?.confirmed;
    saveSession(t.db, 'console:local', 'claude', 's1', 100, true, false);
    expect(confirmed()).toBe(false);
    saveSession(t.db, 'console:local', 'claude', 's1', 200, true, false);
    expect(confirmed()).toBe(false);
    saveSession(t.db, 'console:local', 'claude', 's1', 300, true, true);
    expect(confirmed()).toBe(true);
    saveSession(t.db, 'console:local', 'claude', 's1', 400, true, false);
    expect(confirmed()).toBe(true);
    // A different id is a different session: it starts unconfirmed again.
    saveSession(t.db, 'console:local', 'claude', 's2', 500, true, false);
    expect(getSession(t.db, 'console:local', 'claude')).toMatchObject({ sessionId: 's2', confirmed: false });
  });

  it('a session stored before the confirmed flag existed counts as confirmed', () => {
    t = tempDb();
    // Undo the step that added the column, as a database from the previous release has it.
    t.db.exec('DROP TABLE sessions');
    t.db.exec(
      `CREATE TABLE sessions (scope TEXT NOT NULL, agent TEXT NOT NULL, session_id TEXT NOT NULL,
        created_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL, PRIMARY KEY (scope, agent))`,
    );
    // A version-1 database has neither that column nor chat_settings.verbose, nor generations.
    t.db.exec('ALTER TABLE chat_settings DROP COLUMN verbose');
    t.db.exec('DROP TABLE session_generations');
    t.db.exec(`UPDATE schema_migrations SET version = 1 WHERE module = 'sessions'`);
    t.db.exec(`INSERT INTO sessions VALUES ('console:local', 'claude', 'old', 1, 2)`);
    t.db.close();
    expect(getSession(t.reopen(), 'console:local', 'claude')).toMatchObject({
      sessionId: 'old',
      confirmed: true,
    });
  });

  it('maps chats to the global scope when sessions are shared', () => {
    expect(scopeFor('console:local', 'global')).toBe(GLOBAL_SCOPE);
    expect(scopeFor('console:local', 'per-chat')).toBe('console:local');
  });

  it('stores a chat agent, thinking level and verbose flag, each changeable on its own', () => {
    t = tempDb();
    const chat = 'console:local';
    expect(getChatSettings(t.db, chat)).toEqual({ agent: undefined, thinking: undefined, verbose: false });
    setChatSettings(t.db, chat, { agent: 'codex' }, 1);
    setChatSettings(t.db, chat, { thinking: 'high' }, 2);
    setChatSettings(t.db, chat, { verbose: true }, 3);
    expect(getChatSettings(t.db, chat)).toEqual({ agent: 'codex', thinking: 'high', verbose: true });
    setChatSettings(t.db, chat, { agent: null }, 4);
    expect(getChatSettings(t.db, chat)).toEqual({ agent: undefined, thinking: 'high', verbose: true });
    setChatSettings(t.db, chat, { verbose: false }, 5);
    t.db.close();
    expect(getChatSettings(t.reopen(), chat)).toEqual({ agent: undefined, thinking: 'high', verbose: false });
  });
});
