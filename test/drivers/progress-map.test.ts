// Each warm protocol's messages (the real captures in fixtures/agents/<kind>/warm/) mapped onto
// progress events as the drivers map them: claude stream-json and pi rpc through the cold mappings
// (the same events), codex app-server items and ACP session updates through their own.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { claudeProgress } from '../../src/agents/claude.js';
import type { Json } from '../../src/agents/common.js';
import { piProgress } from '../../src/agents/pi.js';
import type { ProgressStep } from '../../src/core/progress-event.js';
import type { ServerNotification } from '../../src/drivers/codex-protocol.js';
import { acpProgress, codexProgress } from '../../src/drivers/progress-map.js';
import { FIXTURES_DIR } from '../agents/fixtures.js';

/** What the agent sent (`dir: in`) in a warm capture. */
function received(path: string): Json[] {
  const capture = JSON.parse(readFileSync(join(FIXTURES_DIR, path), 'utf8')) as {
    messages: { dir: string; msg: Json }[];
  };
  return capture.messages.filter((m) => m.dir === 'in').map((m) => m.msg);
}

const codexSteps = (msg: Json): ProgressStep[] =>
  typeof msg.method === 'string' ? codexProgress(msg as unknown as ServerNotification) : [];

function acpSteps(msg: Json): ProgressStep[] {
  const params = msg.params as { update?: SessionUpdate } | undefined;
  return msg.method === 'session/update' && params?.update ? acpProgress(params.update) : [];
}

const text = (...deltas: string[]): ProgressStep[] => deltas.map((delta) => ({ type: 'text', delta }));

const rows: [string, (msg: Json) => ProgressStep[], ProgressStep[]][] = [
  [
    'claude/warm/stream-tool.json',
    claudeProgress,
    [
      { type: 'tool', name: 'Bash', id: 'toolu_6fe0hl6c2dr', detail: 'touch made-by-tool' },
      // Denied by claude's own permission rule: the call ended in an error.
      { type: 'tool_done', id: 'toolu_6fe0hl6c2dr', ok: false },
      ...text('After the tool.'),
    ],
  ],
  [
    'pi/warm/rpc-gate-allow.json',
    piProgress,
    [
      {
        type: 'tool',
        name: 'bash',
        id: 'call_jgnpj0g4y4h',
        detail: 'touch made-by-tool && rm -rf no-such-dir',
      },
      { type: 'tool_done', id: 'call_jgnpj0g4y4h', ok: true },
      ...text('After th', 'e tool.'),
    ],
  ],
  [
    'codex/warm/app-server-steer.json',
    codexSteps,
    [
      { type: 'tool', name: 'shell', id: 'call_fkdn30nc1l9', detail: 'sleep 3' },
      { type: 'tool_done', id: 'call_fkdn30nc1l9', ok: true },
    ],
  ],
  ['codex/warm/app-server-tool-deny.json', codexSteps, text('After th', 'e tool.')],
  [
    'opencode/warm/acp-tool-deny.json',
    acpSteps,
    [
      // The call begins with its tool's name only; its command comes in the updates after.
      { type: 'tool', name: 'execute', id: 'call_4f60b3d86e667cdcdd0347d2', detail: 'bash' },
      { type: 'tool', name: 'execute', id: 'call_4f60b3d86e667cdcdd0347d2', detail: 'touch made-by-tool' },
      { type: 'tool', name: 'execute', id: 'call_4f60b3d86e667cdcdd0347d2', detail: 'touch made-by-tool' },
      { type: 'tool_done', id: 'call_4f60b3d86e667cdcdd0347d2', ok: true },
      ...text('After th', 'e tool.'),
    ],
  ],
  // gemini asks before it runs anything: no tool update, only the permission request and the text.
  ['gemini/warm/acp-tool-deny.json', acpSteps, text('After th', 'e tool.')],
];

describe('warm protocols over the real captures', () => {
  it.each(rows)('%s', (path, map, steps) => {
    const got = received(path).flatMap(map);
    // codex's steer capture streams more text than this table is about; its tool steps come first.
    expect(path.endsWith('steer.json') ? got.filter((s) => s.type !== 'text') : got).toEqual(steps);
  });
});
