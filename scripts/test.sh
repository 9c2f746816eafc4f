#!/usr/bin/env bash
# Runs every check of the project: vet, all tests, then each fuzz target for
# a short while (FUZZTIME, default 5s). Tests that need ../shared/data skip
# cleanly when it is absent; the tmux test skips without tmux.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-5s}"

echo "== go vet"
go vet ./...

echo "== go test"
go test -count=1 -timeout 20m ./...

echo "== fuzz (each target for $fuzztime)"
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
  pkg="./$(dirname "${file#./}")"
  for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
    echo "-- $pkg $target"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" > /tmp/prefrag-fuzz.log 2>&1 || {
      cat /tmp/prefrag-fuzz.log
      echo "fuzz target $target in $pkg failed" >&2
      exit 1
    }
    tail -n 1 /tmp/prefrag-fuzz.log
  done
done
echo "== all checks passed"
