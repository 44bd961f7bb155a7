// A place someone shared (a WhatsApp pin, or one through Twilio) as one line for the agent's prompt.
// Coordinates come from the sender: only real latitudes and longitudes are shown as such.
import { sanitizeLine } from './line.js';

/** Longest kept name, address or caption (characters). */
const NOTE_MAX = 300;

/** Decimal degrees as a provider writes them; `Number` alone would also take `0x10` or `1e2`. */
const DECIMAL = /^[+-]?\d{1,3}(\.\d+)?$/;

export function coordinate(v: unknown, limit: number): string | undefined {
  const n = typeof v === 'string' ? (DECIMAL.test(v.trim()) ? Number(v) : undefined) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || Math.abs(n) > limit) return undefined;
  return n.toFixed(6).replace(/\.?0+$/, '');
}

/**
 * `[shared a location: 52.516275, 13.377704 — Brandenburger Tor — Pariser Platz]`, or without
 * coordinates when they are missing or out of range; undefined when nothing at all is usable.
 */
export function placeText(
  what: 'a location' | 'a live location',
  latitude: unknown,
  longitude: unknown,
  notes: readonly (string | null | undefined)[],
): string | undefined {
  const lat = coordinate(latitude, 90);
  const lon = coordinate(longitude, 180);
  const words = notes.map((n) => (n ? sanitizeLine(n, NOTE_MAX) : '')).filter(Boolean);
  const said = words.length > 0 ? words.join(' — ') : '';
  if (lat === undefined || lon === undefined) {
    return said ? `[shared ${what} without coordinates: ${said}]` : undefined;
  }
  return `[shared ${what}: ${lat}, ${lon}${said ? ` — ${said}` : ''}]`;
}
