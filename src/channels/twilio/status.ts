// Delivery status from Twilio's status callbacks. Callbacks can arrive out of order (a late `sent`
// after `delivered`), so a status only ever moves forward. Pure; table-tested.

export const DELIVERY_STATUSES = [
  'accepted',
  'scheduled',
  'queued',
  'sending',
  'sent',
  'delivered',
  'undelivered',
  'failed',
  'canceled',
  'partially_delivered',
  'read',
] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

const RANK: Record<DeliveryStatus, number> = {
  accepted: 0,
  scheduled: 0,
  queued: 1,
  sending: 2,
  sent: 3,
  // Final outcomes share a rank: the first one reported stands.
  delivered: 4,
  undelivered: 4,
  failed: 4,
  canceled: 4,
  partially_delivered: 4,
  read: 5,
};

export const isDeliveryStatus = (s: string): s is DeliveryStatus => s in RANK;

/** The status to keep when `incoming` is reported while `current` is stored. Unknown input is ignored. */
export function nextStatus(current: string, incoming: string): string {
  if (!isDeliveryStatus(incoming)) return current;
  if (!isDeliveryStatus(current)) return incoming;
  // `read` after a failure would be a contradiction; keep the failure.
  if (incoming === 'read' && current !== 'delivered' && RANK[current] === 4) return current;
  return RANK[incoming] > RANK[current] ? incoming : current;
}

/** Final outcome of a delivery, when there is one. */
export function outcomeOf(status: DeliveryStatus): 'delivered' | 'partial' | 'failed' | 'pending' {
  switch (status) {
    case 'delivered':
    case 'read':
      return 'delivered';
    case 'undelivered':
    case 'failed':
    case 'canceled':
      return 'failed';
    case 'partially_delivered':
      return 'partial';
    case 'accepted':
    case 'scheduled':
    case 'queued':
    case 'sending':
    case 'sent':
      return 'pending';
  }
}
