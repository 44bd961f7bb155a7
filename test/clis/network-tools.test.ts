// profiles.networkTools through the whole relay with the real CLIs (relay-rig.ts), in the netns
// against the fake model server: the owner's run offers the model the CLI's own web tools as its
// config has them; a member's run (networkTools false by default) does not, by the flag or setting
// docs/access.md names for that CLI. What reaches the model is what the CLI was told.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentKind } from '../../src/agents/types.js';
import { requests, scenario } from './harness.js';
import { type RelayRig, relayRig } from './relay-rig.js';

const OWNER = '+15550000001';
const MEMBER = '+15550000002';

/** The names of the tools one model request offered (each CLI's request shape). */
function toolNames(body: unknown): string[] {
  const tools = (body as { tools?: unknown[] } | undefined)?.tools ?? [];
  return tools.map((t) => {
    const o = t as { name?: string; type?: string; function?: { name?: string } };
    return o.name ?? o.function?.name ?? o.type ?? '';
  });
}

/**
 * The web tools one request offered: in its tools list, or (claude 2.x) named in the list of
 * deferred tools its prompt gives the model to load through ToolSearch.
 */
function webOffered(body: unknown, web: RegExp): string[] {
  const deferred = [...JSON.stringify(body ?? '').matchAll(/\\n(\w+)(?=\\n)/g)].map((m) => m[1] ?? '');
  return [...new Set([...toolNames(body), ...deferred].filter((t) => web.test(t)))].sort();
}

const CLIS: { kind: AgentKind; web: RegExp; offered: string[]; model?: string }[] = [
  { kind: 'claude', web: /^(WebFetch|WebSearch)$/, offered: ['WebFetch', 'WebSearch'] },
  { kind: 'codex', web: /^web_search$/, offered: ['web_search'], model: 'fake-model' },
  { kind: 'opencode', web: /^(webfetch|websearch)$/, offered: ['webfetch'] },
];

describe.each(CLIS)('$kind cold (real CLI): the member profile keeps the CLI off its web tools', (cli) => {
  const id = `${cli.kind}-nettools-${randomUUID().slice(0, 8)}`;
  let rig: RelayRig;

  beforeAll(async () => {
    rig = relayRig(cli.kind, await scenario(id, { reply: 'Noted.' }), {
      mode: 'cold',
      tools: false,
      owners: [OWNER],
      ...(cli.model !== undefined && { model: cli.model }),
    });
    await rig.start();
  });
  afterAll(async () => {
    await rig?.stop();
  });

  /**
   * The last request of the run that carried `text` and offered tools: opencode also sends a
   * title request (the message, no tools) beside the turn, in either order.
   */
  async function turnRequest(text: string) {
    const all = await requests(id);
    return all.filter((r) => JSON.stringify(r.body).includes(text) && toolNames(r.body).length > 0).at(-1);
  }

  it("offered to the owner's run, not to the member's", async () => {
    await rig.say(OWNER, 'hello from the owner');
    const owner = await turnRequest('hello from the owner');
    await rig.say(MEMBER, 'hello from a member');
    const member = await turnRequest('hello from a member');
    expect(JSON.stringify(owner?.body)).toContain('hello from the owner');
    expect(JSON.stringify(member?.body)).toContain('hello from a member');
    expect(webOffered(owner?.body, cli.web)).toEqual(cli.offered);
    expect(webOffered(member?.body, cli.web)).toEqual([]);
    const ownerTools = toolNames(owner?.body);
    const memberTools = toolNames(member?.body);
    // Only the web tools went: the rest of the member's tools are the owner's.
    expect(memberTools.length).toBeGreaterThan(0);
    expect(ownerTools.filter((t) => !cli.web.test(t)).sort()).toEqual([...memberTools].sort());
  });
});
