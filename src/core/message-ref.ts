// agentwire's own ids for the messages of a chat, as the agent sees them: `out:<n>` for a message the
// relay wrote to its outbox (n: the row of its first part), `in:<n>` for a message it received (n: its
// inbox row). Ours, not the provider's: a message has one before the provider has given it any (it is
// stored before it is sent), and an id never says which channel it is on. Pure.

export type MessageRef = { type: 'out'; id: number } | { type: 'in'; id: number };

const REF = /^(out|in):([1-9]\d{0,15})$/;

export function parseMessageRef(s: string): MessageRef | undefined {
  const m = REF.exec(s.trim());
  if (!m) return undefined;
  const id = Number(m[2]);
  if (!Number.isSafeInteger(id)) return undefined;
  return { type: m[1] as MessageRef['type'], id };
}

export const formatMessageRef = (r: MessageRef): string => `${r.type}:${r.id}`;

/** The message a run answers, when its run key names one (`in:<inbox id>`, queue/run.ts). */
export const answeredRef = (runKey: string): string | undefined =>
  /^in:[1-9]\d*$/.test(runKey) ? runKey : undefined;
