#!/bin/sh
# npm run test:clis: install the pinned agent CLIs (needs the npm registry or its cache), then run
# the real-CLI suite inside a loopback-only network namespace, so nothing can reach the internet.
#   AGENT_CLIS_DIR      where the CLIs live (default: $HOME/.cache/agentwire-clis, outside the repo)
#   AGENT_CLIS_HARNESS  the agent-clis harness (default: ../shared/harness/agent-clis next to the repo)
set -eu
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HARNESS="${AGENT_CLIS_HARNESS:-$ROOT/../shared/harness/agent-clis}"
export AGENT_CLIS_DIR="${AGENT_CLIS_DIR:-$HOME/.cache/agentwire-clis}"
export AGENT_CLIS_HARNESS="$(cd "$HARNESS" && pwd)"
echo "test:clis: installing pinned CLIs into $AGENT_CLIS_DIR" >&2
"$AGENT_CLIS_HARNESS/install.sh" "$AGENT_CLIS_DIR"
cd "$ROOT"
exec "$AGENT_CLIS_HARNESS/netns.sh" npx vitest run --config vitest.clis.config.ts "$@"
