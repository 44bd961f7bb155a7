// opencode's own network tools (webfetch, websearch) denied, for a run that must not use them.
// OPENCODE_PERMISSION is merged over the permission rules of every config opencode reads, its
// built-in agents' included (checked on 1.18 with `opencode debug agent build`: both tools off), so
// the user's config files are never written. A value the agent's env already sets is kept, its
// rules for these two replaced; one that is not a JSON object is replaced whole (the deny wins).

const DENY = { webfetch: 'deny', websearch: 'deny' } as const;

/** The environment that denies opencode's network tools, over `env`'s OPENCODE_PERMISSION. */
export function opencodeNoNetwork(env: Readonly<Record<string, string | undefined>> | undefined): {
  OPENCODE_PERMISSION: string;
} {
  let prior: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(env?.OPENCODE_PERMISSION ?? '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      prior = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: opencode would ignore it anyway.
  }
  return { OPENCODE_PERMISSION: JSON.stringify({ ...prior, ...DENY }) };
}
