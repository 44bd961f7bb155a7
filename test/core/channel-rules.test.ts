// The rules a chat's text is cut by (queue replies and send_message alike): the plug-in's, with a
// running channel's own limit winning, and SMS's size when a channel declares none.
import { describe, expect, it } from 'vitest';
import { type ChunkRules, channelRules, FALLBACK_TEXT_LIMIT } from '../../src/core/chunk.js';

describe('channelRules', () => {
  it.each<[string, number | undefined, ChunkRules | undefined, ChunkRules]>([
    ['plug-in rules', undefined, { limit: 1600, fences: false }, { limit: 1600, fences: false }],
    ['fences on unless the plug-in says', undefined, { limit: 4096 }, { limit: 4096, fences: true }],
    ["the running channel's limit wins", 100, { limit: 1600, fences: false }, { limit: 100, fences: false }],
    ['no plug-in: the running limit, fences on', 4000, undefined, { limit: 4000, fences: true }],
    ['neither: the fallback', undefined, undefined, { limit: FALLBACK_TEXT_LIMIT, fences: true }],
  ])('%s', (_name, running, plugin, want) => {
    expect(channelRules(running, plugin)).toEqual(want);
  });
});
