// How a file size reads in a message. One unit everywhere: MB as the config counts it (media.maxInboundMb
// and maxOutboundMb are multiplied by 1,048,576), so a limit reads as the number its owner configured
// and a size over it never reads as a smaller or equal number. Pure.

const MB = 1_048_576;

/** `n` with at most `decimals` decimals, trailing zeros dropped (25, 0.5, 2.25). */
function plain(n: number, decimals: number): string {
  return String(Number(n.toFixed(decimals)));
}

/** A limit in bytes as its configured number of MB: 25 MB, 0.5 MB (floor(cfg × 1,048,576) reads back as cfg). */
export function limitText(maxBytes: number): string {
  return `${shownLimit(maxBytes)} MB`;
}

/** Two decimals, or two significant digits for a limit under 0.01 MB (which two decimals would show as 0). */
function shownLimit(maxBytes: number): number {
  const v = maxBytes / MB;
  return v >= 0.01 ? Number(v.toFixed(2)) : Number(v.toPrecision(2));
}

/**
 * A size in MB, to the nearest tenth under 10 MB and whole above, with more decimals (at most two,
 * then rounded up) while it would not read as more than the limit: a file a byte over a 25 MB limit
 * reads 25.01 MB, never "25 MB is over the 25 MB limit".
 */
export function sizeText(sizeBytes: number, maxBytes: number): string {
  const mb = sizeBytes / MB;
  const shownMax = shownLimit(maxBytes);
  for (let decimals = mb < 10 ? 1 : 0; decimals <= 2; decimals++) {
    const shown = Number(mb.toFixed(decimals));
    if (shown > shownMax) return `${plain(shown, decimals)} MB`;
  }
  return `${mb >= 0.01 ? plain(Math.ceil(mb * 100) / 100, 2) : String(Number(mb.toPrecision(2)))} MB`;
}

/** The reason a file is refused for its size: "26 MB is over the 25 MB limit". */
export function overLimit(sizeBytes: number, maxBytes: number): string {
  return `${sizeText(sizeBytes, maxBytes)} is over the ${limitText(maxBytes)} limit`;
}
