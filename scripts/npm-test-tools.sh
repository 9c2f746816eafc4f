#!/usr/bin/env bash
# Installs the real MCP servers and clients the tests run (pinned, from the
# npm registry) into the cache folder internal/testdouble/npmtool reads, so
# the test processes find them installed. Tests that need them skip, with
# the reason, when npm is missing or the install fails.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -run '^TestInstall$' ./internal/testdouble/npmtool
