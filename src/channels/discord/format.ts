// Pure: an agent's Markdown as a Discord message. Discord renders most of Markdown itself, so the
// text goes mostly as it is; what is changed is what could act on people rather than show to them:
// - `@everyone` / `@here` get a zero-width space, so the text cannot ping a server even if the
//   message were sent without `allowed_mentions: {parse: []}` (every send sets it; this is the second
//   lock). `<@id>`, `<@&role>` then render as names but ping nobody.
// - A masked link whose label looks like an address (`[https://bank.example](https://evil.example)`)
//   shows its real target beside the label: an agent repeating a web page must not hide where a link goes.
// - A Markdown table, which Discord does not render, goes in a code block where its columns line up.
// Code (fenced or inline) is left exactly as written: nothing inside it renders or pings.

const ZWSP = '\u200b';

const FENCED = /```[\s\S]*?(?:```|$)/g;
const FENCED_OR_INLINE = /```[\s\S]*?(?:```|$)|`[^`\n]+`/g;

/** Alternating prose and code (fenced blocks, and inline spans with `re` = FENCED_OR_INLINE). */
function regions(text: string, re: RegExp): { code: boolean; text: string }[] {
  const out: { code: boolean; text: string }[] = [];
  re.lastIndex = 0;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push({ code: false, text: text.slice(last, m.index) });
    out.push({ code: true, text: m[0] });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ code: false, text: text.slice(last) });
  return out;
}

const looksLikeAddress = (label: string): boolean =>
  /(?:[a-z][a-z0-9+.-]*:\/\/|www\.)|\w\.[a-z]{2,}/i.test(label);

function prose(text: string): string {
  return (
    text
      .replace(/@(everyone|here)\b/gi, `@${ZWSP}$1`)
      // `[label](<url>)` or `[label](url)`; a label that is itself an address shows the real target.
      .replace(/\[([^\]\n]{1,200})\]\(<?([^)\s>]+)>?\)/g, (whole, label: string, url: string) =>
        looksLikeAddress(label) ? `${label} (<${url}>)` : whole,
      )
  );
}

const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

/** Markdown tables (a header row, a rule, rows) wrapped in a code block. */
function fenceTables(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (TABLE_ROW.test(lines[i]!) && TABLE_RULE.test(lines[i + 1] ?? '')) {
      let j = i + 2;
      while (j < lines.length && TABLE_ROW.test(lines[j]!)) j++;
      out.push(
        '```',
        ...lines.slice(i, j).map((l) => l.replace(/`{3,}/g, (f) => f.split('').join(ZWSP))),
        '```',
      );
      i = j - 1;
      continue;
    }
    out.push(lines[i]!);
  }
  return out.join('\n');
}

export function toDiscord(markdown: string): string {
  const each = (text: string, re: RegExp, inProse: (t: string) => string) =>
    regions(text, re)
      .map((r) => (r.code ? r.text : inProse(r.text)))
      .join('');
  // Tables (whole lines, inline code and all) outside code blocks; then the prose outside any code.
  return each(markdown, FENCED, (p) => each(fenceTables(p), FENCED_OR_INLINE, prose));
}

/**
 * Text that must reach the person exactly as written (an approval's command): in one code block,
 * where Discord renders nothing. A ``` inside would end the block early, so its backticks are kept
 * apart by zero-width spaces (Discord has no escape inside a code block).
 */
export function toDiscordCode(text: string): string {
  return `\`\`\`\n${text.replace(/`{3,}/g, (f) => f.split('').join(ZWSP))}\n\`\`\``;
}
