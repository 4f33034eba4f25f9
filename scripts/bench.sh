#!/usr/bin/env bash
# Throughput and memory of rollcall on generated rollouts and a Claude Code transcript, beside the
# floor lines (cat; serde_json validating every line, streamed on as many threads as rollcall
# uses: examples/serde_floor.rs) and jq, as Markdown tables with ratios to the floor.
#
# Usage: scripts/bench.sh                  (from any directory; paths are relative to the repo root)
#        SCALING=1 scripts/bench.sh        (also: does time grow linearly with input and repairs?)
#
# Environment (defaults in brackets):
#   MB [1024]             size of the generated rollout, in MiB
#   RUNS [3]              rounds: each round runs every command of a table once, in turn, so that
#                         a change in the host's load falls on all alike; the best wall time and
#                         the largest peak RSS of each are reported
#   SEED [1]              generator seed
#   BENCH_DIR [target/bench]  where generated rollouts are kept; one is reused while its name (size,
#                         seed, generator arguments) matches and it is newer than the generator
#   ROLLCALL [target/release/rollcall]  binary under test (any command taking rollcall's arguments)
#   GEN [target/release/examples/gen_rollout]  the generator (examples/gen_rollout.rs)
#   SKIP_BUILD [0]        1: do not run cargo, use ROLLCALL and GEN as they are
#   JQ [1]                0: leave out the jq row (it is slow on big files)
#   NOCOMPACT_MB [4096]   size of a rollout with no compaction (every item stays in history), timed
#                         with replay --report, replay and repair-view; 0 leaves it out
#   CONTENT_MB [1024]     size of each rollout of realistic content, no compaction: images with no
#                         known header, escape-dense text, long tool outputs (gen_rollout --content);
#                         0 leaves them out
#   CLAUDE_MB [512]       size of a Claude Code transcript made of chained copies of a real one
#                         (examples/gen_transcript.rs over CLAUDE_SOURCE); 0 leaves it out
#   CLAUDE_SOURCE [fixtures/claude/real_subagents_parallel_attachments_2_1_114/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl]
#   SCAN_FILES [2000]     rollouts planted in a Codex home for the scan case; 0 leaves it out
#   SCAN_MB [8192]        their total size, in MiB
#   SCALING [0]           1: also time a 2× input and one with 4× as many unanswered calls
#   UNANSWERED_EVERY [64] --unanswered-every of the scaling files (the 4× file uses a quarter of it)
#   SCALING_GEN_ARGS [--compact-every 0]  more generator arguments for the scaling files; without
#                         compaction every call stays in history, so the repairs really scale
#
# Wall time is measured with bash's microsecond clock around `/usr/bin/time -v`, which supplies the
# peak RSS (its own wall clock rounds to 10 ms, too coarse for cat on a cached file).
set -euo pipefail
shopt -s inherit_errexit
export LC_ALL=C

cd "$(dirname "${BASH_SOURCE[0]}")/.."

MB=${MB:-1024}
RUNS=${RUNS:-3}
SEED=${SEED:-1}
BENCH_DIR=${BENCH_DIR:-target/bench}
ROLLCALL=${ROLLCALL:-target/release/rollcall}
GEN=${GEN:-target/release/examples/gen_rollout}
FLOOR=${FLOOR:-target/release/examples/serde_floor}
GEN_TRANSCRIPT=${GEN_TRANSCRIPT:-target/release/examples/gen_transcript}
CONTENT_MB=${CONTENT_MB:-1024}
CLAUDE_MB=${CLAUDE_MB:-512}
CLAUDE_SOURCE=${CLAUDE_SOURCE:-fixtures/claude/real_subagents_parallel_attachments_2_1_114/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl}
SKIP_BUILD=${SKIP_BUILD:-0}
JQ=${JQ:-1}
SCALING=${SCALING:-0}
NOCOMPACT_MB=${NOCOMPACT_MB:-4096}
SCAN_FILES=${SCAN_FILES:-2000}
SCAN_MB=${SCAN_MB:-8192}
UNANSWERED_EVERY=${UNANSWERED_EVERY:-64}
SCALING_GEN_ARGS=${SCALING_GEN_ARGS---compact-every 0}

die() {
	echo "bench.sh: $*" >&2
	exit 1
}

[[ $MB =~ ^[0-9]+$ && $MB -gt 0 ]] || die "MB must be a positive whole number of MiB, not '$MB'"
[[ $RUNS =~ ^[0-9]+$ && $RUNS -gt 0 ]] || die "RUNS must be a positive integer, not '$RUNS'"
[[ $UNANSWERED_EVERY =~ ^[0-9]+$ && $UNANSWERED_EVERY -ge 4 && $((UNANSWERED_EVERY % 4)) -eq 0 ]] ||
	die "UNANSWERED_EVERY must be a multiple of 4, at least 4, not '$UNANSWERED_EVERY'"
[[ -x /usr/bin/time ]] || die "needs GNU time at /usr/bin/time (apt-get install time)"

if [[ $SKIP_BUILD != 1 ]]; then
	echo "building rollcall and the generator (release)..." >&2
	cargo build --release --bins --example gen_rollout --example serde_floor --example gen_transcript
fi
[[ -x $GEN ]] || die "no generator at $GEN (build it: cargo build --release --example gen_rollout)"
[[ -x $FLOOR ]] || die "no floor program at $FLOOR (build it: cargo build --release --example serde_floor)"
command -v -- "$ROLLCALL" >/dev/null || die "no rollcall at $ROLLCALL (build it: cargo build --release)"
mkdir -p "$BENCH_DIR"

# rollout MB [GENERATOR ARGS...]: prints the path of that rollout, generating it unless it is kept.
rollout() {
	local mb=$1 tag arg
	shift
	tag="${mb}mb-seed$SEED"
	for arg in "$@"; do tag+="_${arg#--}"; done
	local file="$BENCH_DIR/rollout-$tag.jsonl"
	if [[ -s $file && -s $file.stats && $file -nt $GEN ]]; then
		echo "reusing $file" >&2
	else
		echo "generating $file ..." >&2
		"$GEN" --mb "$mb" --seed "$SEED" "$@" "$file.tmp" 2>"$file.stats"
		mv "$file.tmp" "$file"
	fi
	sed 's/^/    /' "$file.stats" >&2
	printf '%s\n' "$file"
}

# stat_line FILE KEY: the number after "KEY: " in the generator's summary for FILE.
stat_line() {
	awk -v key="$2: " 'index($0, key) == 1 { split(substr($0, length(key) + 1), v, " "); print v[1] }' "$1.stats"
}

# command_for NAME FILE: sets CMD (the argv to time) and LABEL (how the table names it).
command_for() {
	case $1 in
	cat) CMD=(cat "$2") LABEL='`cat FILE`' ;;
	floor) CMD=("$FLOOR" "$2") LABEL='serde_json validation (`serde_floor FILE`)' ;;
	jq) CMD=(jq -c .type "$2") LABEL='`jq -c .type FILE`' ;;
	replay) CMD=("$ROLLCALL" replay --report "$2") LABEL='`rollcall replay --report FILE`' ;;
	history) CMD=("$ROLLCALL" replay "$2") LABEL='`rollcall replay FILE`' ;;
	repair-view) CMD=("$ROLLCALL" repair-view "$2") LABEL='`rollcall repair-view FILE`' ;;
	cat-home) CMD=(sh -c 'find "$1" -type f -name "rollout-*.jsonl" -exec cat {} + >/dev/null' sh "$2") LABEL='`cat` of every rollout' ;;
	scan) CMD=(env HOME=/nonexistent CODEX_HOME="$2" "$ROLLCALL" scan) LABEL='`rollcall scan`' ;;
	scan-json) CMD=(env HOME=/nonexistent CODEX_HOME="$2" "$ROLLCALL" scan --json) LABEL='`rollcall scan --json`' ;;
	*) die "unknown command $1" ;;
	esac
}

time_log=$(mktemp)
trap 'rm -f "$time_log"' EXIT

# run_once NAME FILE: runs the command once with stdout to /dev/null; sets LABEL, WALL (seconds)
# and RSS_KIB (peak resident set size).
run_once() {
	command_for "$1" "$2"
	local start end
	start=$EPOCHREALTIME
	if ! /usr/bin/time -v -o "$time_log" "${CMD[@]}" >/dev/null; then
		die "failed ($(grep -m1 -E '^Command|Exit status' "$time_log" | sed 's/^[[:space:]]*//')): ${CMD[*]}"
	fi
	end=$EPOCHREALTIME
	WALL=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
	RSS_KIB=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$time_log")
}

# measure NAME FILE: the best wall time of RUNS runs in a row, in WALL (for the scaling rows,
# which compare a command with itself).
measure() {
	local best='' i
	for ((i = 0; i < RUNS; i++)); do
		run_once "$1" "$2"
		if [[ -z $best ]] || awk -v a="$WALL" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$WALL
		fi
	done
	WALL=$best
}

# warm FILE: read it once so every command starts from the page cache.
warm() {
	cat "$1" >/dev/null
}

# table FILE_OR_DIR BYTES NAME...: times each command on the input, as rows beside the first
# (cat) and the floor (serde_json validation), when it is one of them. Sets RATIO[NAME] to each
# command's wall time over the floor's.
declare -A RATIO
table() {
	local input=$1 bytes=$2 name first='' floor=''
	shift 2
	rows=()
	RATIO=()
	local walls=() labels=() rss=()
	local i round
	# The commands take turns, RUNS rounds of one run each, so that a change in the host's load
	# falls on all of them alike and the ratios stay fair; each keeps its best wall time and its
	# largest peak RSS.
	for ((round = 0; round < RUNS; round++)); do
		i=0
		for name in "$@"; do
			run_once "$name" "$input"
			labels[i]=$LABEL
			if [[ -z ${walls[i]:-} ]] || awk -v a="$WALL" -v b="${walls[i]}" 'BEGIN { exit !(a < b) }'; then
				walls[i]=$WALL
			fi
			if ((RSS_KIB > ${rss[i]:-0})); then rss[i]=$RSS_KIB; fi
			i=$((i + 1))
		done
	done
	i=0
	for name in "$@"; do
		echo "  ${labels[i]} on ${input##*/}: best ${walls[i]} s, peak RSS $((rss[i] / 1024)) MiB" >&2
		[[ -n $first ]] || first=${walls[i]}
		[[ $name != floor ]] || floor=${walls[i]}
		i=$((i + 1))
	done
	for ((i = 0; i < $#; i++)); do
		name=${*:i+1:1}
		RATIO[$name]=$(awk -v w="${walls[i]}" -v f="${floor:-0}" 'BEGIN { printf "%.2f", (f > 0 ? w / f : 0) }')
		rows+=("$(awk -v label="${labels[i]}" -v wall="${walls[i]}" -v cat="$first" -v floor="${floor:-0}" -v rss="${rss[i]}" -v bytes="$bytes" 'BEGIN {
			w = wall > 0.001 ? wall : 0.001; c = cat > 0.001 ? cat : 0.001
			f = floor > 0 ? sprintf("%.2f", w / floor) : "-"
			printf "| %s | %.3f | %.0f | %s | %.1f | %.1f | %.4f |", label, wall, bytes / 1048576 / w, f, w / c, rss / 1024, rss * 1024 / bytes
		}')")
	done
	echo '| command | wall s | MB/s | × floor | × cat | peak RSS MiB | RSS / input |'
	echo '|---|---:|---:|---:|---:|---:|---:|'
	printf '%s\n' "${rows[@]}"
}

# goal LABEL NAME LIMIT: one line of the goals summary: the command's wall time over the floor's
# (from the last table), against LIMIT.
goals=()
goal() {
	local verdict
	verdict=$(awk -v r="${RATIO[$2]}" -v l="$3" 'BEGIN { print (r <= l ? "holds" : "misses") }')
	goals+=("| $1 | ${RATIO[$2]} | ≤ $3 | $verdict |")
}

names=(cat floor)
if [[ $JQ == 1 ]] && command -v jq >/dev/null; then
	names+=(jq)
fi
names+=(replay repair-view)

file=$(rollout "$MB")
bytes=$(stat -c %s "$file")
warm "$file"
echo "timing on $file (best of $RUNS)..." >&2

echo
printf 'Input: `%s`, %.1f MiB, %s lines, %s turns, %s calls. Best of %s runs; %s CPUs (%s).\n\n' \
	"$file" "$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')" "$(stat_line "$file" lines)" \
	"$(stat_line "$file" turns)" "$(stat_line "$file" calls)" "$RUNS" "$(nproc)" \
	"$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
table "$file" "$bytes" "${names[@]}"
goal 'replay --report, mixed content, compaction every 300 turns' replay 1
echo
echo 'MB = MiB (2^20 bytes); × floor and × cat = wall time relative to the serde_json validation and'
echo 'to cat; RSS / input = peak RSS ÷ file size.'

if [[ $NOCOMPACT_MB != 0 ]]; then
	file=$(rollout "$NOCOMPACT_MB" --compact-every 0)
	bytes=$(stat -c %s "$file")
	warm "$file"
	echo "timing the no-compaction rollout (best of $RUNS)..." >&2
	echo
	printf 'No compaction: `%s`, %.1f MiB, %s lines, %s calls; every item stays in history (%s items).\n\n' \
		"$file" "$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')" "$(stat_line "$file" lines)" \
		"$(stat_line "$file" calls)" "$(stat_line "$file" 'history items')"
	names=(cat floor)
	if [[ $JQ == 1 ]] && command -v jq >/dev/null; then names+=(jq); fi
	table "$file" "$bytes" "${names[@]}" replay history repair-view
	goal 'replay --report, no compaction' replay 1
	goal 'repair-view, no compaction' repair-view 1.5
fi

if [[ $CONTENT_MB != 0 ]]; then
	for content in images escapes outputs; do
		file=$(rollout "$CONTENT_MB" --compact-every 0 --content "$content")
		bytes=$(stat -c %s "$file")
		warm "$file"
		echo "timing the $content rollout (best of $RUNS)..." >&2
		echo
		case $content in
		images) what='an image in every prompt, its bytes random base64 with no known header' ;;
		escapes) what='tool output dense with quotes, backslashes, tabs and \\uXXXX' ;;
		outputs) what='tool outputs of 64 KiB to 2 MiB' ;;
		esac
		printf 'Content `%s` (%s): `%s`, %.1f MiB, %s lines, no compaction.\n\n' "$content" "$what" \
			"$file" "$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')" "$(stat_line "$file" lines)"
		table "$file" "$bytes" cat floor replay repair-view
		goal "replay --report, $content" replay 1
		goal "repair-view, $content" repair-view 1.5
	done
fi

if [[ $CLAUDE_MB != 0 ]]; then
	[[ -x $GEN_TRANSCRIPT ]] || die "no generator at $GEN_TRANSCRIPT (build it: cargo build --release --example gen_transcript)"
	[[ -s $CLAUDE_SOURCE ]] || die "no Claude Code transcript at $CLAUDE_SOURCE"
	file="$BENCH_DIR/transcript-${CLAUDE_MB}mb-$(basename "$CLAUDE_SOURCE")"
	if [[ -s $file && $file -nt $GEN_TRANSCRIPT && $file -nt $CLAUDE_SOURCE ]]; then
		echo "reusing $file" >&2
	else
		echo "generating $file ..." >&2
		"$GEN_TRANSCRIPT" --mb "$CLAUDE_MB" "$CLAUDE_SOURCE" "$file.tmp" 2>"$file.stats"
		mv "$file.tmp" "$file"
	fi
	bytes=$(stat -c %s "$file")
	warm "$file"
	echo "timing the Claude Code transcript (best of $RUNS)..." >&2
	echo
	printf 'Claude Code: `%s`, %.1f MiB, %s lines: chained copies of `%s` with fresh ids.\n\n' "$file" \
		"$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')" "$(stat_line "$file" lines)" "$CLAUDE_SOURCE"
	table "$file" "$bytes" cat floor replay history repair-view
	goal 'Claude Code, replay --report' replay 1.5
	goal 'Claude Code, replay' history 1.5
	goal 'Claude Code, repair-view' repair-view 1.5
fi

echo
echo 'Goals (issue 23): wall time over the serde_json validation of the same file, same run.'
echo
echo '| case | × floor | goal | |'
echo '|---|---:|---:|---|'
printf '%s\n' "${goals[@]}"

if [[ $SCAN_FILES != 0 ]]; then
	home="$BENCH_DIR/home-${SCAN_FILES}x-${SCAN_MB}mb-seed$SEED"
	if [[ ! -s $home/done || $home/done -ot $GEN ]]; then
		echo "planting $SCAN_FILES rollouts ($SCAN_MB MiB) in $home ..." >&2
		rm -rf "$home"
		each=$(awk -v t="$SCAN_MB" -v n="$SCAN_FILES" 'BEGIN { printf "%.4f", t / n }')
		for ((i = 0; i < SCAN_FILES; i++)); do
			day=$(printf '%02d' $((i % 28 + 1)))
			dir="$home/sessions/2026/03/$day"
			mkdir -p "$dir"
			name=$(printf 'rollout-2026-03-%sT%02d-%02d-%02d-019d%04x-0000-7000-8000-%012x.jsonl' \
				"$day" $((i / 3600 % 24)) $((i / 60 % 60)) $((i % 60)) $((i % 65536)) "$i")
			"$GEN" --mb "$each" --seed $((SEED * 100000 + i)) "$dir/$name" 2>/dev/null
		done
		date >"$home/done"
	fi
	bytes=$(find "$home" -type f -name 'rollout-*.jsonl' -printf '%s\n' | awk '{ s += $1 } END { print s }')
	find "$home" -type f -name 'rollout-*.jsonl' -exec cat {} + >/dev/null
	echo "timing scan over $home (best of $RUNS)..." >&2
	echo
	printf 'Scan: a Codex home of %s rollouts, %.1f MiB in all.\n\n' "$SCAN_FILES" "$(awk -v b="$bytes" 'BEGIN { print b / 1048576 }')"
	table "$home" "$bytes" cat-home scan scan-json
fi

[[ $SCALING == 1 ]] || exit 0

read -r -a scaling_args <<<"$SCALING_GEN_ARGS"
base=$(rollout "$MB" --unanswered-every "$UNANSWERED_EVERY" "${scaling_args[@]}")
double=$(rollout "$((2 * MB))" --unanswered-every "$UNANSWERED_EVERY" "${scaling_args[@]}")
quad=$(rollout "$MB" --unanswered-every "$((UNANSWERED_EVERY / 4))" "${scaling_args[@]}")
for f in "$base" "$double" "$quad"; do warm "$f"; done
echo "timing the scaling files (best of $RUNS)..." >&2

rows=()
for name in cat replay repair-view; do
	measure "$name" "$base"
	t_base=$WALL
	measure "$name" "$double"
	t_double=$WALL
	measure "$name" "$quad"
	t_quad=$WALL
	rows+=("$(awk -v label="$LABEL" -v b="$t_base" -v d="$t_double" -v q="$t_quad" 'BEGIN {
		w = b > 0.001 ? b : 0.001
		printf "| %s | %.3f | %.3f | %.2f | %.3f | %.2f |", label, b, d, d / w, q, q / w
	}')")
done

echo
printf 'Scaling: base `%s` (%s unanswered calls in the final history), 2× input `%s`, 4× unanswered `%s` (%s). Generator arguments: `%s`.\n\n' \
	"$base" "$(stat_line "$base" 'unanswered since last compaction')" "$double" "$quad" \
	"$(stat_line "$quad" 'unanswered since last compaction')" "--unanswered-every N $SCALING_GEN_ARGS"
echo '| command | base s | 2× input s | 2× input ratio | 4× unanswered s | 4× unanswered ratio |'
echo '|---|---:|---:|---:|---:|---:|'
printf '%s\n' "${rows[@]}"
echo
echo 'Linear behaviour: the 2× input ratio is near 2, the 4× unanswered ratio near 1.'
