// Which named agent answers a chat. Pure; table-tested in test/core/routes.test.ts. Routes are
// tried in order and the first whose every condition holds wins; a route with no condition matches
// every chat (the default). With no route matching, the chat gets the config's default agent.

export interface Route {
  /** The channel's name (`twilio`, `whatsapp`…); unset: any channel. */
  channel?: string | undefined;
  /** Chat ids as the channel gives them (a number, a group JID, a Telegram id); unset: any chat. */
  chats?: readonly string[] | undefined;
  /** true: groups only; false: direct chats only; unset: both. */
  group?: boolean | undefined;
  /** The agent the chat starts with. */
  agent: string;
  /** The agents `/agent NAME` may switch the chat to (the route's own is always one). */
  agents?: readonly string[] | undefined;
}

export interface ChatFacts {
  channel: string;
  chatId: string;
  isGroup: boolean;
}

export interface RouteDecision {
  agent: string;
  /** The agents the chat may use (its own first). */
  allowed: readonly string[];
  /** Index of the route that matched; undefined: the default. */
  index?: number;
}

function matches(r: Route, c: ChatFacts): boolean {
  if (r.channel !== undefined && r.channel !== c.channel) return false;
  if (r.chats !== undefined && !r.chats.includes(c.chatId)) return false;
  if (r.group !== undefined && r.group !== c.isGroup) return false;
  return true;
}

export function routeFor(
  routes: readonly Route[],
  chat: ChatFacts,
  fallback: { agent: string; allowed: readonly string[] },
): RouteDecision {
  const index = routes.findIndex((r) => matches(r, chat));
  const r = routes[index];
  if (!r) return { agent: fallback.agent, allowed: fallback.allowed };
  return { agent: r.agent, allowed: [...new Set([r.agent, ...(r.agents ?? [])])], index };
}

/** Whether every chat `later` matches is matched by `earlier` too (so `later` never wins). */
function covers(earlier: Route, later: Route): boolean {
  if (earlier.channel !== undefined && earlier.channel !== later.channel) return false;
  if (earlier.group !== undefined && earlier.group !== later.group) return false;
  if (earlier.chats !== undefined) {
    if (later.chats === undefined) return false;
    if (!later.chats.every((c) => earlier.chats?.includes(c))) return false;
  }
  return true;
}

export interface RouteProblem {
  index: number;
  message: string;
}

/** Routes that can never match: an empty chat list, or every chat taken by a route before them. */
export function unreachableRoutes(routes: readonly Route[]): RouteProblem[] {
  const out: RouteProblem[] = [];
  routes.forEach((r, index) => {
    if (r.chats !== undefined && r.chats.length === 0) {
      out.push({ index, message: 'can never match: its chats list is empty' });
      return;
    }
    const before = routes.slice(0, index).findIndex((e) => covers(e, r));
    if (before >= 0)
      out.push({
        index,
        message: `can never match: route ${before} before it takes every chat it names (the first match wins)`,
      });
  });
  return out;
}
