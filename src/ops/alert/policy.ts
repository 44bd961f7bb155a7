// Pure: when WhatsApp is down long enough to tell the owner by another route. One
// incident is one stretch of `degraded` or `relink_required`; it gets at most one alert and, if it
// was alerted, one recovery notice. `connecting` and `stopped` neither open nor close an incident, so
// a relay restarted in the middle of one (state `stopped`, then `connecting`) does not start over,
// and with the incident stored, it does not alert again.
import type { ChannelState } from '../../channels/types.js';
import { cleanText } from '../status/snapshot.js';

export type IncidentKind = 'degraded' | 'relink_required';

export interface Incident {
  kind: IncidentKind;
  /** When the link went bad. */
  since: number;
  /** When the alert was claimed (it is never sent twice, also across restarts). */
  alertedAt?: number;
}

export type AlertDecision =
  | { type: 'none' }
  /** A new incident: stored now, alerted later if it lasts. */
  | { type: 'open'; incident: Incident }
  | { type: 'alert'; incident: Incident; text: string }
  | { type: 'recover'; text: string }
  /** Over before anyone was told: forgotten without a word. */
  | { type: 'close' };

export interface AlertInput {
  state: ChannelState;
  incident: Incident | undefined;
  now: number;
  alertAfterMs: number;
}

export function decideAlert(input: AlertInput): AlertDecision {
  const { state, incident, now } = input;
  if (state.type === 'degraded' || state.type === 'relink_required') {
    if (!incident) return { type: 'open', incident: { kind: state.type, since: Math.min(state.since, now) } };
    if (incident.alertedAt !== undefined || now - incident.since < input.alertAfterMs)
      return { type: 'none' };
    return {
      type: 'alert',
      incident: { ...incident, alertedAt: now },
      text: alertText(state, now - incident.since),
    };
  }
  if (state.type === 'connected' && incident) {
    if (incident.alertedAt === undefined) return { type: 'close' };
    return {
      type: 'recover',
      text: `agentwire: WhatsApp works again after ${minutes(now - incident.since)}. Messages sent meanwhile are being answered now.`,
    };
  }
  return { type: 'none' };
}

/** One SMS: what is wrong, for how long, and what to do. Reasons are scrubbed like status text. */
function alertText(
  state: Extract<ChannelState, { type: 'degraded' | 'relink_required' }>,
  downMs: number,
): string {
  if (state.type === 'relink_required')
    return `agentwire: WhatsApp needs to be linked again (for ${minutes(downMs)}): ${short(state.reason)} Run \`agentwire login\` on the relay's machine, or scan the QR code in the web console.`;
  return `agentwire: WhatsApp has not worked for ${minutes(downMs)}: ${short(state.lastError)}. Your messages wait until it is back. Check the relay machine's network, or run \`agentwire doctor\` there.`;
}

const short = (text: string): string => {
  const t = cleanText(text);
  return t.length > 160 ? `${t.slice(0, 159)}…` : t;
};

function minutes(ms: number): string {
  const m = Math.max(1, Math.round(ms / 60_000));
  return m < 120 ? `${m} min` : `${Math.round(m / 60)} h`;
}
