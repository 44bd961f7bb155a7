// After a build: the `agentwire` bin must be executable. tsc writes files with mode 0644, and npm
// only makes a package's bin executable when it links it, which happens before `prepare` builds
// dist/ in a fresh clone; so `npx agentwire` there found the bin but could not run it
// ("Permission denied").
import { chmodSync } from 'node:fs';

chmodSync(new URL('../dist/cli/bin.js', import.meta.url), 0o755);
