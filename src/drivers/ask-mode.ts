// What makes each ACP CLI ask under the `ask` policy, for its one process only: the user's own
// config files are never written. gemini decides by its approval mode, which the user's settings
// may set to auto_edit or yolo: `--approval-mode default` prompts for shell, edits, web fetches and
// MCP tools (reads run). opencode decides by its `permission` rules, whose default lets bash and
// edits run unasked (docs/warm-agents.md): OPENCODE_CONFIG_CONTENT, the inline config opencode
// reads above the user's and the project's files, sets the rules that change something or reach
// outside to "ask", at the top and for its two built-in agents (whose own rules would win), and
// lets a denied tool go back to the model instead of ending the turn without a reply.
// Reads, searches and listings stay as configured: a phone is not asked about every file read,
// as claude and codex (approval "untrusted") do not ask about reads either. Pure: table-tested.

export const GEMINI_ASK_ARGS: readonly string[] = ['--approval-mode', 'default'];

const ASKS = ['edit', 'bash', 'webfetch', 'websearch', 'external_directory'] as const;

type Loose = Record<string, unknown>;
const obj = (v: unknown): Loose => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});

/**
 * The inline config for an opencode process under `ask`, merged over what the agent's env already
 * passes in OPENCODE_CONFIG_CONTENT (its other keys kept, its rules for these tools replaced).
 * Undefined when that value is not a JSON object: the caller refuses to start rather than drop it.
 */
export function opencodeAskConfig(existing: string | undefined): string | undefined {
  let base: Loose = {};
  if (existing !== undefined && existing.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(existing);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
      base = parsed as Loose;
    } catch {
      return undefined;
    }
  }
  const asks = Object.fromEntries(ASKS.map((k) => [k, 'ask']));
  const rules = (v: unknown): Loose => {
    // `permission: "allow"` (every rule at once) becomes the fallback rule `*` under ours.
    const prior = typeof v === 'string' ? { '*': v } : obj(v);
    return { ...prior, ...asks };
  };
  const agents = obj(base.agent);
  const agent: Loose = { ...agents };
  for (const name of ['build', 'plan']) {
    const a = obj(agents[name]);
    agent[name] = { ...a, permission: rules(a.permission) };
  }
  // By default opencode ends the turn at a denied tool, with no reply; the other CLIs tell the model
  // and it answers. `continue_loop_on_deny` does that, unless the inline config already says.
  const experimental = obj(base.experimental);
  return JSON.stringify({
    ...base,
    permission: rules(base.permission),
    agent,
    experimental: { continue_loop_on_deny: true, ...experimental },
  });
}
