// Answers an ACP agent's `session/request_permission` without a person: the configured policy picks
// one of the options the agent offered. A one-time option wins over an "always" one, so an answer
// the relay gives on its own never changes the agent's lasting settings. While a turn is being
// cancelled every question is answered `cancelled`, as the protocol asks of a client.
import type { RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { PermissionPolicy } from './types.js';

const PREFERENCE: Record<PermissionPolicy, readonly string[]> = {
  allow: ['allow_once', 'allow_always'],
  deny: ['reject_once', 'reject_always'],
};

export function answerPermission(
  request: Pick<RequestPermissionRequest, 'options'>,
  policy: PermissionPolicy,
  cancelling: boolean,
): RequestPermissionResponse {
  if (cancelling) return { outcome: { outcome: 'cancelled' } };
  const options = Array.isArray(request.options) ? request.options : [];
  for (const kind of PREFERENCE[policy]) {
    const option = options.find((o) => o?.kind === kind && typeof o.optionId === 'string');
    if (option) return { outcome: { outcome: 'selected', optionId: option.optionId } };
  }
  // Nothing fits the policy (a deny with only allow options, or none at all): refusing to choose
  // is the one answer that grants nothing and still lets the turn go on.
  return { outcome: { outcome: 'cancelled' } };
}
