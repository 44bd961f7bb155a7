#!/bin/sh
# npm run test:clis: the five real agent CLIs, pinned, against our fake model server
# (test/clis/fake-model/), inside a loopback-only network namespace (netns.sh), through the same
# runCommandReply the relay uses. Needs the npm registry (or a warm npm cache) for the first install.
#   AGENTWIRE_CLIS_DIR  where the CLIs are installed (default: ~/.cache/agentwire-clis, outside the repo)
# When it cannot run, it says why in one line and exits non-zero: it never reports a pass it did not run.
set -eu
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
export AGENTWIRE_CLIS_DIR="${AGENTWIRE_CLIS_DIR:-$HOME/.cache/agentwire-clis}"
# Checked first: no point installing ~1.4 GB of CLIs that cannot be run isolated.
sh test/clis/netns.sh --check
echo "test:clis: installing the pinned CLIs into $AGENTWIRE_CLIS_DIR" >&2
node test/clis/install/install.mjs "$AGENTWIRE_CLIS_DIR"
exec sh test/clis/netns.sh npx vitest run --config vitest.clis.config.ts "$@"
