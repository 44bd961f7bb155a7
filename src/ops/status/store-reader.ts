// What the store says about the relay's work, in status's words: waiting messages per chat,
// sessions, the last runs and recent failures. Used live by the relay's `status` method and offline
// by `agentwire status` when no relay runs. Pure: the facts are read by store/status-read.ts.
import type { StatusFacts } from '../../store/status-read.js';
import type { StatusSources } from './snapshot.js';

export type StoreSources = Required<
  Pick<StatusSources, 'lanes' | 'sessions' | 'runs' | 'failures' | 'usage'>
> &
  Pick<StatusSources, 'replies' | 'waitingAnswers'>;

const LIMIT = 20;

/** Human words for the reasons the core notes on a failed or dropped message. */
const NOTES: Record<string, string> = {
  queue_full: 'too many messages were waiting in this chat; the message was refused',
  crashed_twice: 'the relay stopped twice while answering this message; it was given up',
  relay_error: 'the relay hit an internal error while answering',
  agent_unavailable: 'the agent CLI could not be started',
  no_session: 'there was no session to continue',
  timeout: 'the agent ran past its time limit and was stopped',
  auth: 'the agent CLI is not logged in',
  rate_limit: "the agent's provider is rate-limiting",
  overloaded: "the agent's provider is overloaded",
  not_installed: 'the agent CLI is not installed',
  session_not_found: 'the agent lost the session',
  exit: 'the agent CLI exited with an error',
  unparseable: "the agent's output could not be read",
};

export function readStore(facts: StatusFacts): StoreSources {
  const { runs } = facts;
  return {
    lanes: Object.entries(facts.pending).map(([chat, pending]) => ({ chat, pending })),
    sessions: facts.sessions,
    ...(facts.replies && { replies: facts.replies }),
    ...(facts.waitingAnswers?.length && { waitingAnswers: facts.waitingAnswers }),
    runs: runs.map((r) => ({
      at: r.startedAt,
      chat: r.chat,
      agent: r.agent,
      durationMs: r.durationMs,
      outcome: r.outcome,
      label: r.label,
      ...(r.usage && { usage: r.usage }),
    })),
    usage: facts.usage,
    failures: [
      ...inboxFailures(facts.inboxFailures),
      ...outboxFailures(facts.outboxFailures),
      // User runs that failed are already the inbox rows above; system runs have no inbox row.
      ...runs
        .filter((r) => r.outcome !== 'ok' && r.label !== 'user')
        .map((r) => ({
          at: r.startedAt + r.durationMs,
          chat: r.chat,
          kind: `${r.label}:${r.outcome}`,
          message: r.error ?? NOTES[r.outcome] ?? 'the run failed',
        })),
    ]
      .sort((a, b) => b.at - a.at)
      .slice(0, LIMIT),
  };
}

function inboxFailures(rows: StatusFacts['inboxFailures']) {
  // One run answers a batch of rows, finished together: one failure per batch.
  return rows.map((r) => {
    const kind = r.note ?? 'failed';
    const what = NOTES[kind] ?? 'the message was not answered';
    return { at: r.at, chat: r.chat, kind, message: r.n > 1 ? `${what} (${r.n} messages)` : what };
  });
}

function outboxFailures(rows: StatusFacts['outboxFailures']) {
  return rows.map((r) => ({
    at: r.at,
    chat: r.chat,
    kind: r.expired === null ? 'delivery' : 'delivery_expired',
    message:
      r.expired === null
        ? `a reply could not be delivered: ${r.error ?? 'unknown error'}`
        : `a reply was given up after failing for the whole retry time (delivery.retryHours): ${r.error ?? 'unknown error'}`,
  }));
}
