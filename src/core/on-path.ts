// Where a command would be found: as a path (relative to `cwd` when given), or in the PATH's
// absolute folders, the way execvp looks for it. Only whether a file is there, not whether it runs.
import { existsSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

export function onPath(file: string, path: string | undefined, cwd?: string): string | undefined {
  if (file.includes('/')) {
    const f = cwd === undefined ? file : resolve(cwd, file);
    return existsSync(f) ? f : undefined;
  }
  for (const d of (path ?? '').split(delimiter)) {
    if (!isAbsolute(d)) continue;
    const f = join(d, file);
    if (existsSync(f)) return f;
  }
  return undefined;
}
