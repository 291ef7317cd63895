#!/usr/bin/env bash
# The official MCP conformance scenarios against this service (issue 4). server-initialize,
# tools-list and ping run against the real service (main.ts on a fresh embedded database, with
# the demo key it prints on first start). json-schema-2020-12 only looks for a fixture tool of
# the suite's reference server, so it runs against the same handler with that one tool added
# (tests/mcp/conformance_server.ts). Ends with "conformance: N passed, M failed"; exits 1 on any
# failure.
set -uo pipefail
cd "$(dirname "$0")/../.."

CONFORMANCE="npm:@modelcontextprotocol/conformance@0.1.16"
PERMS=(--allow-net --allow-env --allow-read --allow-write --allow-sys)
work=$(mktemp -d)
service_pid=""
fixture_pid=""
passed=0
failed=0

cleanup() {
  for pid in $service_pid $fixture_pid; do
    kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT

# wait_for FILE PATTERN SECONDS: waits until FILE has a line matching PATTERN.
wait_for() {
  for _ in $(seq 1 "$3"); do
    grep -qE "$2" "$1" 2>/dev/null && return 0
    sleep 1
  done
  return 1
}

scenario() { # scenario URL NAME
  echo "== $2"
  # The suite writes its results under the working directory: keep them in the temp folder.
  if (cd "$work" && deno run -A "$CONFORMANCE" server --url "$1" --scenario "$2") \
    >"$work/$2.log" 2>&1; then
    passed=$((passed + 1))
    grep -E "SUCCESS|Passed:" "$work/$2.log"
  else
    failed=$((failed + 1))
    cat "$work/$2.log"
    echo "FAILED: $2"
  fi
}

port=$((20000 + RANDOM % 20000))
DATA_DIR="$work/data" PORT="$port" SEED_DEMO=1 deno run "${PERMS[@]}" main.ts \
  >"$work/service.out" 2>"$work/service.err" &
service_pid=$!
if wait_for "$work/service.err" 'oi_live_[A-Za-z0-9]+' 180; then
  key=$(grep -oE 'oi_live_[A-Za-z0-9]+' "$work/service.err" | head -n 1)
  url="http://127.0.0.1:$port/mcp/?api_key=$key"
  for _ in $(seq 1 30); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 1; done
  for s in server-initialize tools-list ping; do scenario "$url" "$s"; done
else
  echo "The service did not print a demo key:"
  cat "$work/service.err"
  failed=$((failed + 3))
fi

deno run "${PERMS[@]}" tests/mcp/conformance_server.ts >"$work/fixture.out" 2>"$work/fixture.err" &
fixture_pid=$!
if wait_for "$work/fixture.out" '^READY ' 120; then
  read -r _ fport fkey < <(grep '^READY ' "$work/fixture.out")
  scenario "http://127.0.0.1:$fport/mcp/?api_key=$fkey" json-schema-2020-12
else
  echo "The conformance server did not start:"
  cat "$work/fixture.err"
  failed=$((failed + 1))
fi

echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
