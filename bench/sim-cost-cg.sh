#!/bin/sh
# Instructions and level-1 data misses per live update in the simulator (bench/sim-cost.ts --in-process under
# valgrind's cachegrind, V8 single-threaded so that the garbage collector's work is counted too): repeatable on a
# loaded machine, where CPU time is not. Usage: bench/sim-cost-cg.sh [devices...]   (default: 1 1000)
# Each size runs twice (a burst of 5,000 and of 25,000 after the same warm-up); the difference ÷ 20,000 is one
# measure. Where the garbage collector's major collections fall varies from run to run (43,700–53,700 instructions
# per update at 1,000 devices on one commit), so each size is measured CG_RUNS times (default 3): the median, and
# the lowest and highest. The client in the same process only counts frames: its share is the same at every size.
set -e
cd "$(dirname "$0")/.."
js=bench/.build/sim-cost.js
node_modules/.bin/esbuild bench/sim-cost.ts --bundle --platform=node --target=es2020 --outfile="$js" --external:ws --log-level=warning
run() {
  valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null node --single-threaded "$js" --in-process \
    --entities "$1" --feed "$2" 2>&1 | sed 's/,//g' | awk '/I *refs/ {i=$4} /D1  misses/ {d=$4} END {print i, d}'
}
for n in ${*:-1 1000}; do
  i=0
  while [ "$i" -lt "${CG_RUNS:-3}" ]; do
    a=$(run "$n" 5000)
    b=$(run "$n" 25000)
    echo "$a $b" | awk '{printf "%.0f %.0f\n", ($3-$1)/20000, ($4-$2)/20000}'
    i=$((i + 1))
  done | sort -n | awk -v n="$n" '{ir[NR]=$1; d1[NR]=$2} END {m=int((NR+1)/2); printf "@%s devices: %d instructions (%d-%d), %d D1 misses per update (that run), median of %d runs\n", n, ir[m], ir[1], ir[NR], d1[m], NR}'
done
