#!/usr/bin/env bash
# Measures prefrag's start-up: builds the binary (or takes BIN), then runs
# `prefrag --help`, `prefrag version` and `prefrag search QUERY` (on an empty
# home, so it stops at "no corpus yet") N times each (default 50) and prints
# the min and median wall time, plus the sum of package initialisation from
# GODEBUG=inittrace=1 (median over the runs of the ms, bytes and allocations
# of all inits) and the median user+sys CPU time, which a loaded machine
# disturbs less than the wall time. Wall times depend on the machine and its load: compare runs
# made side by side, never assert on them.
set -euo pipefail
cd "$(dirname "$0")/.."

n="${N:-50}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bin="${BIN:-}"
if [[ -z "$bin" ]]; then
	bin="$tmp/prefrag"
	go build -o "$bin" .
fi
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_DATA_HOME="$tmp/home/.local/share"
mkdir -p "$HOME"

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

run() {
	local name="$1"
	shift
	local times=() cpus=() i t
	"$bin" "$@" >/dev/null 2>&1 || true # warm the page cache
	local TIMEFORMAT='%3R %3U %3S'
	for ((i = 0; i < n; i++)); do
		t=$({ time "$bin" "$@" >/dev/null 2>&1; } 2>&1 || true)
		times+=("$(awk '{printf "%.1f", $1*1000}' <<<"$t")")
		cpus+=("$(awk '{printf "%.1f", ($2+$3)*1000}' <<<"$t")")
	done
	local min med cpu
	min=$(printf '%s\n' "${times[@]}" | sort -n | head -1)
	med=$(printf '%s\n' "${times[@]}" | median)
	cpu=$(printf '%s\n' "${cpus[@]}" | median)
	local ms=() bytes=() allocs=() line
	for ((i = 0; i < 10; i++)); do
		line=$({ GODEBUG=inittrace=1 "$bin" "$@" 2>&1 >/dev/null || true; } | awk '/^init /{ms+=$5; b+=$8; a+=$10} END {printf "%.1f %d %d", ms, b, a}')
		read -r m b a <<<"$line"
		ms+=("$m") bytes+=("$b") allocs+=("$a")
	done
	printf '%-18s wall min %6.1f ms  median %6.1f ms  cpu median %6.1f ms   init (median of 10) %6.1f ms %8.0f B %6.0f allocs\n' \
		"$name" "$min" "$med" "$cpu" "$(printf '%s\n' "${ms[@]}" | median)" \
		"$(printf '%s\n' "${bytes[@]}" | median)" "$(printf '%s\n' "${allocs[@]}" | median)"
}

echo "prefrag start-up, $n runs each ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
run "--help" --help
run "version" version
run "search (no corpus)" search "start-up"
