#!/usr/bin/env bash
# Measures prefrag's start-up: builds the binary (or takes BIN; several
# binaries, e.g. main's and a branch's, as BIN="old new"), then runs
# `prefrag --help`, `prefrag version` and `prefrag search QUERY` (on an empty
# home, so it stops at "no corpus yet") N times each (default 50) and prints
# the min and median wall time, the median user+sys CPU time (which a loaded
# machine disturbs less than the wall time), and the sum of package
# initialisation from GODEBUG=inittrace=1 (median over 10 runs of the ms,
# bytes and allocations of all inits). Several binaries are run in turn,
# run by run, so that a change of load hits them alike. Wall times depend
# on the machine and its load: compare runs made side by side, never
# assert on them.
set -euo pipefail
cd "$(dirname "$0")/.."

n="${N:-50}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
read -r -a bins <<<"${BIN:-}"
if [[ ${#bins[@]} -eq 0 ]]; then
	bins=("$tmp/prefrag")
	go build -o "${bins[0]}" .
fi
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" XDG_DATA_HOME="$tmp/home/.local/share"
mkdir -p "$HOME"

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

run() {
	local name="$1"
	shift
	local i b t TIMEFORMAT='%3R %3U %3S'
	local -a times cpus
	for ((b = 0; b < ${#bins[@]}; b++)); do
		"${bins[b]}" "$@" >/dev/null 2>&1 || true # warm the page cache
		times[b]="" cpus[b]=""
	done
	for ((i = 0; i < n; i++)); do
		for ((b = 0; b < ${#bins[@]}; b++)); do
			t=$({ time "${bins[b]}" "$@" >/dev/null 2>&1; } 2>&1 || true)
			times[b]+="$(awk '{printf "%.1f", $1*1000}' <<<"$t") "
			cpus[b]+="$(awk '{printf "%.1f", ($2+$3)*1000}' <<<"$t") "
		done
	done
	for ((b = 0; b < ${#bins[@]}; b++)); do
		local min med cpu line m by a
		local -a ms=() bytes=() allocs=()
		min=$(tr ' ' '\n' <<<"${times[b]}" | grep . | sort -n | head -1)
		med=$(tr ' ' '\n' <<<"${times[b]}" | grep . | median)
		cpu=$(tr ' ' '\n' <<<"${cpus[b]}" | grep . | median)
		for ((i = 0; i < 10; i++)); do
			line=$({ GODEBUG=inittrace=1 "${bins[b]}" "$@" 2>&1 >/dev/null || true; } | awk '/^init /{ms+=$5; b+=$8; a+=$10} END {printf "%.1f %d %d", ms, b, a}')
			read -r m by a <<<"$line"
			ms+=("$m") bytes+=("$by") allocs+=("$a")
		done
		printf '%-18s %-14s wall min %6.1f ms  median %6.1f ms  cpu median %6.1f ms   init (median of 10) %6.1f ms %8.0f B %6.0f allocs\n' \
			"$name" "$(basename "${bins[b]}")" "$min" "$med" "$cpu" "$(printf '%s\n' "${ms[@]}" | median)" \
			"$(printf '%s\n' "${bytes[@]}" | median)" "$(printf '%s\n' "${allocs[@]}" | median)"
	done
}

echo "prefrag start-up, $n runs each ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
run "--help" --help
run "version" version
run "search (no corpus)" search "start-up"
