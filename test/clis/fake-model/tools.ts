// Reading a request's tools and conversation, per API: which tools the CLI offered, and whether
// the last turn already carries a tool's result (then the model gives its final answer).
import type { Api } from './scenario.js';

type Body = Record<string, unknown>;
const list = (x: unknown): Record<string, unknown>[] =>
  Array.isArray(x) ? x.filter((i): i is Record<string, unknown> => typeof i === 'object' && i !== null) : [];

export function offeredTools(api: Api, body: Body): string[] {
  if (api === 'gemini')
    return list(body.tools).flatMap((t) => list(t.functionDeclarations).map((f) => String(f.name)));
  return list(body.tools).flatMap((t) => {
    // A Responses namespace (codex puts each MCP server's tools in one): `<namespace>__<tool>`.
    if (t.type === 'namespace') return list(t.tools).map((c) => `${String(t.name)}__${String(c.name)}`);
    const fn = t.function as { name?: unknown } | undefined; // Chat Completions nests it
    const name = fn?.name ?? t.name;
    // Built-in tools (codex's web search, say) have a type and no name: not callable by name.
    return typeof name === 'string' ? [name] : [];
  });
}

export function toolResultSeen(api: Api, body: Body): boolean {
  switch (api) {
    case 'anthropic': {
      const last = list(body.messages).at(-1);
      return list(last?.content).some((b) => b.type === 'tool_result');
    }
    case 'gemini': {
      const last = list(body.contents).at(-1);
      return list(last?.parts).some((p) => 'functionResponse' in p);
    }
    // Only since the last final answer: a warm session's earlier turns hold their own tool results
    // (a message steered in mid-turn is a user message after this turn's result: still seen).
    case 'openai-chat':
      return sinceLastAnswer(list(body.messages), isChatAnswer).some((m) => m.role === 'tool');
    case 'openai-responses':
      return sinceLastAnswer(list(body.input), (i) => i.type === 'message' && i.role === 'assistant').some(
        (i) => String(i.type).endsWith('_call_output'),
      );
  }
}

/** A Responses call to `<namespace>__<tool>` of an offered namespace: the item's `namespace` and `name`. */
export function namespacedCall(body: Body, name: string): { namespace: string; name: string } | undefined {
  for (const t of list(body.tools)) {
    if (t.type !== 'namespace') continue;
    const prefix = `${String(t.name)}__`;
    if (name.startsWith(prefix) && list(t.tools).some((c) => c.name === name.slice(prefix.length)))
      return { namespace: String(t.name), name: name.slice(prefix.length) };
  }
  return undefined;
}

/** The items after the last one `answer` matches (all of them when none does). */
function sinceLastAnswer(
  items: Record<string, unknown>[],
  answer: (i: Record<string, unknown>) => boolean,
): Record<string, unknown>[] {
  return items.slice(items.findLastIndex(answer) + 1);
}

/** A Chat Completions assistant message that answered (text, no tool call). */
const isChatAnswer = (m: Record<string, unknown>): boolean =>
  m.role === 'assistant' &&
  !list(m.tool_calls).length &&
  (typeof m.content === 'string' ? m.content !== '' : list(m.content).length > 0);

/**
 * The tool results the request carries for the model's last call, as JSON (tests look for an
 * answer in them): only the results, not the call, whose arguments may hold the same words.
 */
export function toolResults(api: Api, body: Body): string {
  switch (api) {
    case 'anthropic':
      return JSON.stringify(
        list(list(body.messages).at(-1)?.content).filter((b) => b.type === 'tool_result'),
      );
    case 'gemini':
      return JSON.stringify(list(list(body.contents).at(-1)?.parts).filter((p) => 'functionResponse' in p));
    case 'openai-chat':
      return JSON.stringify(
        sinceLastAnswer(list(body.messages), isChatAnswer).filter((m) => m.role === 'tool'),
      );
    case 'openai-responses':
      return JSON.stringify(
        sinceLastAnswer(list(body.input), (i) => i.type === 'message' && i.role === 'assistant').filter((i) =>
          String(i.type).endsWith('_call_output'),
        ),
      );
  }
}
