// Every route but /healthz needs the token: `?token=` (then kept in an HttpOnly, SameSite=Strict
// cookie and dropped from the address bar), the cookie, or `Authorization: Bearer`. Without it the
// answer is 401 and carries no data at all.
import type { NextFunction, Request, Response } from 'express';
import { sameToken } from './token.js';

export const COOKIE = 'agentwire_console';

export function requireToken(token: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const query = typeof req.query.token === 'string' ? req.query.token : undefined;
    if (query !== undefined && sameToken(query, token)) {
      res.cookie(COOKIE, token, { httpOnly: true, sameSite: 'strict', path: '/' });
      if (req.method === 'GET' && req.accepts(['html', 'json']) === 'html') {
        // Keep the token out of the address bar, history and screenshots.
        res.redirect(303, req.path);
        return;
      }
      next();
      return;
    }
    if (sameToken(cookieValue(req.headers.cookie, COOKIE), token) || sameToken(bearer(req), token)) {
      next();
      return;
    }
    res.status(401).set('WWW-Authenticate', 'Bearer realm="agentwire console"');
    if (req.accepts(['html', 'json']) === 'html') {
      res
        .type('html')
        .send(
          '<!doctype html><meta charset="utf-8"><title>agentwire</title><p>This console needs its token. Open the URL the relay printed at start (the token is in <code>console.token</code> in the state folder).</p>',
        );
    } else res.json({ error: 'token required' });
  };
}

function bearer(req: Request): string | undefined {
  const h = req.headers.authorization;
  return h?.startsWith('Bearer ') ? h.slice(7).trim() : undefined;
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
