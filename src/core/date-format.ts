// Intl.DateTimeFormat instances, made once per locale, options and zone. Each one holds about 25 KB
// of ICU memory that V8 does not count, so one made per message let a relay under a steady stream of
// collected messages grow by ~30 MB per 1,000 messages before the GC ran (test/stress/load.test.ts).
// The options and zones come from code and config, so the cache stays small.
const formatters = new Map<string, Intl.DateTimeFormat>();

export function dateFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}\0${JSON.stringify(options)}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, options);
    formatters.set(key, f);
  }
  return f;
}
