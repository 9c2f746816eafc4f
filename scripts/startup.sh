#!/usr/bin/env bash
# Measures prefrag's start-up: builds the binary (or takes BIN), then runs
# `prefrag --help`, `prefrag version` and `prefrag search QUERY` (on an empty
# home, so it stops at "no corpus yet") N times each (default 50) and prints
# the min and median wall time, plus the sum of package initialisation from
# GODEBUG=inittrace=1 (median over the runs of the ms, bytes and allocations
# of all inits). Wall times depend on the machine and its load: compare runs
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
	local times=() i t0 t1
	"$bin" "$@" >/dev/null 2>&1 || true # warm the page cache
	for ((i = 0; i < n; i++)); do
		t0=$EPOCHREALTIME
		"$bin" "$@" >/dev/null 2>&1 || true
		t1=$EPOCHREALTIME
		times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", (b-a)*1000}')")
	done
	local min med
	min=$(printf '%s\n' "${times[@]}" | sort -n | head -1)
	med=$(printf '%s\n' "${times[@]}" | median)
	local ms=() bytes=() allocs=() line
	for ((i = 0; i < 10; i++)); do
		line=$({ GODEBUG=inittrace=1 "$bin" "$@" 2>&1 >/dev/null || true; } | awk '/^init /{ms+=$5; b+=$8; a+=$10} END {printf "%.1f %d %d", ms, b, a}')
		read -r m b a <<<"$line"
		ms+=("$m") bytes+=("$b") allocs+=("$a")
	done
	printf '%-18s wall min %7.1f ms  median %7.1f ms   init (median of 10) %5.1f ms  %8d B  %6d allocs\n' \
		"$name" "$min" "$med" "$(printf '%s\n' "${ms[@]}" | median)" \
		"$(printf '%s\n' "${bytes[@]}" | median)" "$(printf '%s\n' "${allocs[@]}" | median)"
}

echo "prefrag start-up, $n runs each ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
run "--help" --help
run "version" version
run "search (no corpus)" search "start-up"
