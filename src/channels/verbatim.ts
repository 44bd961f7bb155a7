// Text that must reach the person exactly as written (an approval's command, OutboundItem `code`) in
// a chat app that reads its own marks in plain text: WhatsApp shows *bold*, _italic_, ~strike~ and
// ```mono```, and inside ```mono``` nothing else. So the text goes inside one; a text that holds ```
// itself cannot be fenced, and its marks are then swapped for look-alikes, so none of it can be hidden
// in bold or struck through. Pure; tested in test/channels/verbatim.test.ts.

const LOOK_ALIKE: Record<string, string> = { '*': '∗', _: 'ˍ', '~': '∼', '`': 'ˋ' };

/** `text` as WhatsApp shows it exactly: in one monospace block. */
export function whatsappVerbatim(text: string): string {
  if (!text.includes('```')) return `\`\`\`${text}\`\`\``;
  return text.replace(/[*_~`]/g, (c) => LOOK_ALIKE[c] ?? c);
}
