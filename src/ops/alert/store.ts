// The open alert incident per channel, kept in the store (store/alert-incidents.ts) so a restart
// neither forgets that the owner was already told nor tells them again.
import type { IncidentStore as StoredIncidents } from '../../store/alert-incidents.js';
import type { IncidentKind } from './policy.js';

/** The store's incidents, with the alert policy's kinds. */
export type IncidentStore = StoredIncidents<IncidentKind>;
