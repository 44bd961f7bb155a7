// Pure: agents answer in Markdown; Slack shows mrkdwn, whose control characters are `&`, `<` and `>`
// (api.slack.com/reference/surfaces/formatting#escaping). Every one of them in the agent's text is
// escaped, code included, so nothing it prints becomes Slack syntax: no `<!channel>` ping, no
// `<@U…>` mention, no `<https://evil|harmless label>`. The only `<…>` in the output are the links
// built here from Markdown links, whose URL is http(s) with `|`, `<`, `>` percent-encoded.

const MARK = '\u0002';
const BOLD = '\u0003';
const LINK = /!?\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g;

export const escapeMrkdwn = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const safeUrl = (url: string): string =>
  escapeMrkdwn(url.replace(/\|/g, '%7C').replace(/</g, '%3C').replace(/>/g, '%3E'));

/** Splits text into code regions (kept as code) and prose. An unclosed fence runs to the end. */
function regions(text: string): { code: boolean; text: string }[] {
  const out: { code: boolean; text: string }[] = [];
  const re = /```[\s\S]*?(?:```|$)|`[^`\n]+`/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push({ code: false, text: text.slice(last, m.index) });
    out.push({ code: true, text: m[0] });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ code: false, text: text.slice(last) });
  return out;
}

function codeMrkdwn(raw: string): string {
  if (!raw.startsWith('```')) return `\`${escapeMrkdwn(raw.slice(1, -1))}\``;
  const body = raw.slice(3, raw.endsWith('```') && raw.length >= 6 ? -3 : undefined);
  const nl = body.indexOf('\n');
  // Slack has no syntax highlighting: the language line would show as code.
  const code = nl >= 0 && /^[\w+#.-]*$/.test(body.slice(0, nl).trim()) ? body.slice(nl + 1) : body;
  return `\`\`\`\n${escapeMrkdwn(code.replace(/\n$/, ''))}\n\`\`\``;
}

/** Inline marks of one line of prose, already free of code. */
function inline(line: string): string {
  const links: string[] = [];
  let s = line.replace(/[\u0002\u0003]/g, '').replace(LINK, (_m, label: string, url: string) => {
    links.push(`<${safeUrl(url)}|${escapeMrkdwn(label.replace(/\|/g, '¦'))}>`);
    return `${MARK}${links.length - 1}${MARK}`;
  });
  s = escapeMrkdwn(s)
    .replace(/\*\*\*(?=\S)(.+?)(?<=\S)\*\*\*/g, `${BOLD}_$1_${BOLD}`)
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/(?<![\w_])__(?=\S)(.+?)(?<=\S)__(?![\w_])/g, `${BOLD}$1${BOLD}`)
    .replace(/(?<![*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![*\w])/g, '_$1_')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '~$1~')
    .replace(/\u0003/g, '*');
  return s.replace(/\u0002(\d+)\u0002/g, (m, i: string) => links[Number(i)] ?? m);
}

function proseLine(line: string, atLineStart: boolean): string {
  if (atLineStart) {
    const h = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (h) return `*${inline(h[1]!.replace(/\*\*|__/g, ''))}*`;
    // A quote is Slack's own `>` at the start of a line; any other `>` is escaped.
    const q = /^\s{0,3}>\s?(.*)$/.exec(line);
    if (q) return `>${inline(q[1]!)}`;
    const li = /^(\s*)[*+-]\s+(.*)$/.exec(line);
    if (li) return `${li[1]}• ${inline(li[2]!)}`;
  }
  return inline(line);
}

export function markdownToMrkdwn(text: string): string {
  let out = '';
  for (const r of regions(text)) {
    if (r.code) {
      out += codeMrkdwn(r.text);
      continue;
    }
    const startsLine = out === '' || out.endsWith('\n');
    out += r.text
      .split('\n')
      .map((line, i) => proseLine(line, i > 0 || startsLine))
      .join('\n');
  }
  return out;
}
