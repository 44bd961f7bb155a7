// The console token: random, made at first start, kept in the state folder (0600) so the printed
// URL stays valid across restarts. Compared in constant time (hashes, so lengths leak nothing).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const TOKEN_FILE = 'console.token';

export function ensureConsoleToken(home: string): string {
  const file = join(home, TOKEN_FILE);
  const existing = readToken(file);
  if (existing) {
    chmodSync(file, 0o600);
    return existing;
  }
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const token = randomBytes(24).toString('base64url');
  // Only the relay holding the lock writes it; a damaged file is simply replaced.
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

function readToken(file: string): string | undefined {
  try {
    const t = readFileSync(file, 'utf8').trim();
    return t.length >= 16 ? t : undefined;
  } catch {
    return undefined;
  }
}

export function sameToken(given: string | undefined, expected: string): boolean {
  if (!given) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
