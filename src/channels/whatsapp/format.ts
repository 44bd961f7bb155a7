// Pure: agents answer in Markdown; WhatsApp has its own marks (*bold*, _italic_, ~strike~, ```mono```).
// Code (fenced blocks and `inline`) is protected and passed through byte for byte.

const BOLD = '\u0001';
/** Marks a web address set aside while emphasis is converted (`\u0002n\u0002`). */
const URL_MARK = '\u0002';
const LINK = /!?\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g;
const BARE_URL = /\bhttps?:\/\/[^\s<>]+/g;

/** Splits text into code regions (kept as they are) and prose (converted). */
function regions(text: string): { code: boolean; text: string }[] {
  const out: { code: boolean; text: string }[] = [];
  // A fence runs to the next fence or to the end (an unclosed fence still protects its code).
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

function convertLine(line: string, atLineStart: boolean): string {
  let s = line;
  if (atLineStart) {
    const h = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(s);
    if (h) s = `${BOLD}${h[1]!.replace(/\*\*|__/g, '')}${BOLD}`;
    // "* item" would read as bold on WhatsApp; "- item" is a list there too.
    s = s.replace(/^(\s*)[*+]\s+/, '$1- ');
  }
  // Links first, then every address is set aside: `*`, `_` and `~` inside a URL (a GitHub path to
  // `__init__.py`, a query with `*`) are part of it, and converting them breaks the link.
  const urls: string[] = [];
  s = s
    .replace(LINK, (_m, label: string, url: string) => (label === url ? url : `${label} (${url})`))
    .replace(BARE_URL, (u) => `${URL_MARK}${urls.push(u) - 1}${URL_MARK}`);
  s = s
    .replace(/\*\*\*(?=\S)(.+?)(?<=\S)\*\*\*/g, `${BOLD}_$1_${BOLD}`)
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/(?<![\w_])__(?=\S)(.+?)(?<=\S)__(?![\w_])/g, `${BOLD}$1${BOLD}`)
    .replace(/(?<![*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![*\w])/g, '_$1_')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '~$1~');
  s = s.replace(/\u0002(\d+)\u0002/g, (m, i: string) => urls[Number(i)] ?? m);
  return s.split(BOLD).join('*');
}

function convertProse(text: string, startsAtLineStart: boolean): string {
  return text
    .split('\n')
    .map((line, i) => convertLine(line, i > 0 || startsAtLineStart))
    .join('\n');
}

export function markdownToWhatsApp(text: string): string {
  let out = '';
  for (const r of regions(text)) {
    if (r.code) out += r.text;
    else out += convertProse(r.text, out === '' || out.endsWith('\n'));
  }
  return out;
}
