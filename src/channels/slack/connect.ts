// Who the bot is (auth.test): its user id (to see mentions and drop its own messages), its workspace
// (every event is checked against it) and its name for status. Also what a failure says to a person.
import type { SlackApi } from './api.js';
import { classifyError } from './errors.js';
import type { Me } from './normalize.js';

export async function whoAmI(api: SlackApi): Promise<Me> {
  const r = await api.auth.test();
  if (!r.user_id || !r.team_id) throw new Error('auth.test returned no user or team id');
  return { userId: r.user_id, teamId: r.team_id, name: r.user ?? r.user_id };
}

/** True when retrying cannot help: the token itself is refused. */
export const isAuthFailure = (err: unknown): boolean => classifyError(err).stop === 'auth';

/** `which`: the token the failed call used (auth.test the bot token, apps.connections.open the app's). */
export function describeFailure(err: unknown, which = 'bot token'): string {
  const { failure, stop } = classifyError(err);
  if (stop === 'auth' && failure.code) return `Slack rejected the ${which} (${failure.code})`;
  if (failure.error.startsWith('network')) return 'Slack unreachable';
  return failure.error;
}
