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
} from '../../src/store/sessions.js';
import { tempDb } from './helpers.js';

let t: ReturnType<typeof tempDb>;
afterEach(() => t?.cleanup());

describe('sessionState', () => {
  const row: SessionRow = { sessionId: 's', createdAt: 0, lastUsedAt: 1_000_000 };
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
    });
    saveSession(t.db, 'console:local', 'claude', 's1', 300);
    expect(getSession(t.db, 'console:local', 'claude')).toEqual({
      sessionId: 's1',
      createdAt: 100,
      lastUsedAt: 300,
    });
    saveSession(t.db, 'console:local', 'claude', 's2', 400);
    expect(getSession(t.db, 'console:local', 'claude')).toEqual({
      sessionId: 's2',
      createdAt: 400,
      lastUsedAt: 400,
    });
  });

  it('maps chats to the global scope when sessions are shared', () => {
    expect(scopeFor('console:local', 'global')).toBe(GLOBAL_SCOPE);
    expect(scopeFor('console:local', 'per-chat')).toBe('console:local');
  });

  it('stores a chat agent and thinking level, each changeable on its own', () => {
    t = tempDb();
    expect(getChatSettings(t.db, 'console:local')).toEqual({ agent: undefined, thinking: undefined });
    setChatSettings(t.db, 'console:local', { agent: 'codex' }, 1);
    setChatSettings(t.db, 'console:local', { thinking: 'high' }, 2);
    expect(getChatSettings(t.db, 'console:local')).toEqual({ agent: 'codex', thinking: 'high' });
    setChatSettings(t.db, 'console:local', { agent: null }, 3);
    expect(getChatSettings(t.db, 'console:local')).toEqual({ agent: undefined, thinking: 'high' });
    t.db.close();
    expect(getChatSettings(t.reopen(), 'console:local').thinking).toBe('high');
  });
});
