#!/usr/bin/env bash
# The instructions each contender of the client CPU benchmark executes,
# counted apart under valgrind's callgrind: where CPU time moves by a few
# percent from run to run on a shared machine, an instruction count is the
# same every run, so it shows what the client does more than the raw SDK
# program, and nothing else.
#
#   bash scripts/instructions.sh ["row filter"]
#
# The filter picks rows as `cargo bench --bench client_cpu -- FILTER` does
# (default "no server", the rows without a server; the end-to-end rows
# count the client thread only, not the server's). Each side runs alone
# (`CLIENT_CPU_ONLY=ours` or `raw`), and callgrind counts only inside the
# contenders' timed work, so building the events to write and starting the
# server are left out. Prints, per run of the filter, each side's count
# and the ratio. Under valgrind the SDK signs requests with sha2's portable
# code (valgrind's CPU reports no SHA extensions): both sides count more
# than they would run, alike.
#
# Counts are not time: a cache miss costs no instruction, and valgrind
# counts the string-copy instruction glibc uses for large copies once per
# byte copied. `cargo bench -p entity-tests --bench client_cpu` measures
# time. About a minute a row.
set -euo pipefail
cd "$(dirname "$0")/.."
filter=${1:-no server}

if ! command -v valgrind >/dev/null; then
  echo "installing valgrind (Debian)" >&2
  if [ "$(id -u)" = 0 ]; then apt-get install -y valgrind >/dev/null; else sudo apt-get install -y valgrind >/dev/null; fi
fi

bench=$(cargo bench -p entity-tests --bench client_cpu --no-run --message-format=json 2>/dev/null |
  sed -n 's/.*"executable":"\([^"]*client_cpu[^"]*\)".*/\1/p' | tail -1)
[ -x "$bench" ] || { echo "no client_cpu bench binary" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() { # side row -> instructions
  CLIENT_CPU_ONLY=$1 valgrind --tool=callgrind --toggle-collect='*Counted*' \
    --callgrind-out-file="$out/$1.cg" "$bench" --bench "$2" >/dev/null 2>"$out/$1.log"
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/$1.log"
}

# One row at a time: each row's count is its own.
rows=$("$bench" --bench "$filter" --quick 2>/dev/null | sed -n 's/^\(\(no server\|server\|build\)[^0-9]*[a-z]\)  *[0-9].*/\1/p')
printf '%-38s %16s %16s %8s\n' "instructions, ours / raw" "ours" "raw" "ratio"
while IFS= read -r row; do
  [ -n "$row" ] || continue
  ours=$(count ours "=$row") && raw=$(count raw "=$row")
  printf '%-38s %16s %16s %8s\n' "$row" "$ours" "$raw" \
    "$(awk -v a="$ours" -v b="$raw" 'BEGIN { printf "%.4fx", a / b }')"
done <<<"$rows"
