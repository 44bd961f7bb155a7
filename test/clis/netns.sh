#!/bin/sh
# netns.sh CMD [ARGS...]: runs CMD in a new network namespace holding only a loopback interface
# (brought up), so CMD and everything it starts reach 127.0.0.1 and nothing else: the real agent
# CLIs cannot call a real model, telemetry or an update server, whatever their config says.
# netns.sh --check: only says whether that is possible here. Where it is not (no unshare or ip, or
# namespaces not permitted, as in many containers), it says why in one line and exits 1; the suite
# never falls back to the real network.
# CMD sees AGENTWIRE_CLIS_NETNS=1 and keeps this script's PID (exec).
set -eu
[ $# -gt 0 ] || { echo "usage: netns.sh --check | CMD [ARGS...]" >&2; exit 2; }
no() { echo "test:clis: cannot run the real CLIs isolated: $1" >&2; exit 1; }
command -v unshare >/dev/null || no "\`unshare\` is not installed (util-linux); it makes the loopback-only network namespace"
command -v ip >/dev/null || no "\`ip\` is not installed (iproute2); it brings the namespace's loopback up"
# Root makes a network namespace directly; anyone else inside a user namespace of their own.
if [ "$(id -u)" = 0 ]; then FLAGS=-n; else FLAGS=-rn; fi
if ! err="$(unshare $FLAGS sh -c 'ip link set lo up' 2>&1)"; then
  no "\`unshare $FLAGS\` is not permitted here ($(printf '%s' "$err" | head -n 1))"
fi
[ "$1" = --check ] && exit 0
# lo starts down in a new namespace: bring it up, then become CMD.
exec unshare $FLAGS -- env AGENTWIRE_CLIS_NETNS=1 sh -c 'ip link set lo up && exec "$@"' netns.sh "$@"
