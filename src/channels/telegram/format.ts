// Pure: agents answer in Markdown; Telegram is sent HTML (parse_mode HTML), whose only reserved
// characters are &, < and > (and " inside an attribute), so escaping is total by construction.
// Code (fenced blocks and `inline`) is escaped and kept byte for byte. Every line's result is checked
// for well-nested tags: marks that cross (`**a *b** c*`) make that line plain escaped text instead of
// a message Telegram refuses with "can't parse entities".

const URL_MARK = '\u0002';
const LINK = /!?\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g;
const BARE_URL = /\bhttps?:\/\/[^\s<>]+/g;

export const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string): string => escapeHtml(s).replace(/"/g, '&quot;');

/** Splits text into code regions (converted as code) and prose. An unclosed fence runs to the end. */
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

function codeHtml(raw: string): string {
  if (!raw.startsWith('```')) return `<code>${escapeHtml(raw.slice(1, -1))}</code>`;
  const body = raw.slice(3, raw.endsWith('```') && raw.length >= 6 ? -3 : undefined);
  const nl = body.indexOf('\n');
  const lang = nl >= 0 ? body.slice(0, nl).trim() : '';
  const code = nl >= 0 && /^[\w+#.-]*$/.test(lang) ? body.slice(nl + 1) : body;
  const cls = lang && /^[\w+#.-]{1,32}$/.test(lang) ? ` class="language-${escapeAttr(lang)}"` : '';
  return `<pre><code${cls}>${escapeHtml(code.replace(/\n$/, ''))}</code></pre>`;
}

/** Inline marks of one line of prose, already free of code. */
function inline(line: string): string {
  const urls: string[] = [];
  const keep = (html: string) => `${URL_MARK}${urls.push(html) - 1}${URL_MARK}`;
  let s = line
    .replace(/\u0002/g, '')
    .replace(LINK, (_m, label: string, url: string) =>
      keep(`<a href="${escapeAttr(url)}">${escapeHtml(label)}</a>`),
    )
    .replace(BARE_URL, (u) => keep(escapeHtml(u)));
  s = escapeHtml(s)
    .replace(/\*\*\*(?=\S)(.+?)(?<=\S)\*\*\*/g, '<b><i>$1</i></b>')
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, '<b>$1</b>')
    .replace(/(?<![\w_])__(?=\S)(.+?)(?<=\S)__(?![\w_])/g, '<b>$1</b>')
    .replace(/(?<![*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![*\w])/g, '<i>$1</i>')
    .replace(/(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])/g, '<i>$1</i>')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '<s>$1</s>');
  return s.replace(/\u0002(\d+)\u0002/g, (m, i: string) => urls[Number(i)] ?? m);
}

/** True when every tag closes in the order it opened (what Telegram's parser demands). */
export function wellNested(html: string): boolean {
  const stack: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-z]+)[^>]*>/g)) {
    if (!m[1]) stack.push(m[2]!);
    else if (stack.pop() !== m[2]) return false;
  }
  return stack.length === 0;
}

function proseLine(line: string, atLineStart: boolean): string {
  if (atLineStart) {
    const h = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (h) return guard(`<b>${inline(h[1]!.replace(/\*\*|__/g, ''))}</b>`, line);
    const q = /^\s{0,3}>\s?(.*)$/.exec(line);
    if (q) return guard(`<blockquote>${inline(q[1]!)}</blockquote>`, line);
    const li = /^(\s*)[*+-]\s+(.*)$/.exec(line);
    if (li) return guard(`${li[1]}• ${inline(li[2]!)}`, line);
  }
  return guard(inline(line), line);
}

const guard = (html: string, raw: string): string => (wellNested(html) ? html : escapeHtml(raw));

export function markdownToTelegramHtml(text: string): string {
  let out = '';
  for (const r of regions(text)) {
    if (r.code) {
      out += codeHtml(r.text);
      continue;
    }
    const startsLine = out === '' || out.endsWith('\n') || out.endsWith('</pre>');
    out += r.text
      .split('\n')
      .map((line, i) => proseLine(line, i > 0 || startsLine))
      .join('\n');
  }
  return out;
}
