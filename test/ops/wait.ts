// Polls a condition until it holds; fails with the last value instead of a timing assertion. The
// default bound allows for a machine loaded by other jobs; a passing test never waits it out.
export async function waitFor(cond: () => boolean | Promise<boolean>, what = 'condition', limitMs = 45_000) {
  const end = Date.now() + limitMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
