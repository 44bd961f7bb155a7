import { describe, expect, it } from 'vitest';
import { whatsappVerbatim } from '../../src/channels/verbatim.js';

describe('whatsappVerbatim', () => {
  it.each([
    [
      'in one monospace block: WhatsApp reads no marks inside',
      'run: *rm* _-rf_ ~x~',
      '```run: *rm* _-rf_ ~x~```',
    ],
    ['several lines in the one block', 'a\nb', '```a\nb```'],
    [
      'holding ``` itself: cannot be fenced, marks swapped for look-alikes',
      'a ``` *b* _c_ ~d~',
      'a ˋˋˋ ∗b∗ ˍcˍ ∼d∼',
    ],
  ])('%s', (_name, text, want) => expect(whatsappVerbatim(text)).toBe(want));
});
