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
  return `${plain(maxBytes / MB, 2)} MB`;
}

/**
 * A size in MB, rounded up with as few decimals as keep it above `maxBytes` as limitText shows it:
 * 26 MB over a 25 MB limit, 25.1 MB (not "25 MB") for a file a few bytes over.
 */
export function sizeText(sizeBytes: number, maxBytes: number): string {
  const shownMax = Number(plain(maxBytes / MB, 2));
  for (const decimals of [0, 1, 2]) {
    const f = 10 ** decimals;
    const shown = Math.ceil((sizeBytes / MB) * f) / f;
    if (shown > shownMax) return `${plain(shown, decimals)} MB`;
  }
  return `${plain(sizeBytes / MB, 3)} MB`;
}

/** The reason a file is refused for its size: "26 MB is over the 25 MB limit". */
export function overLimit(sizeBytes: number, maxBytes: number): string {
  return `${sizeText(sizeBytes, maxBytes)} is over the ${limitText(maxBytes)} limit`;
}
