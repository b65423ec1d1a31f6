#!/bin/sh
# Instructions per live update, stage by stage (bench/live-path.ts under valgrind's callgrind): repeatable on a
# loaded machine, where CPU time is not. Usage: bench/live-path-cg.sh [entities] [stages] [bundle.js]
#   bench/live-path-cg.sh 1000 "parse route merge format send deliver ref ref-deliver"
# (ours: parse .. deliver, each adding one step; the reference node: ref = send's counterpart, ref-deliver = deliver's)
# Each stage runs twice (feeding 5,000 and 25,000 of the same 25,000 frames); the difference ÷ 20,000 is printed.
# V8 runs --single-threaded (no background compiler or GC threads), so two runs count within ~0.3 % of each other.
set -e
cd "$(dirname "$0")/.."
n=${1:-1000}
stages=${2:-"parse route merge format send deliver ref ref-deliver"}
js=${3:-bench/.build/live-path.js}
if [ -z "$3" ]; then
  node_modules/.bin/esbuild bench/live-path.ts --bundle --platform=node --target=es2020 --outfile="$js" \
    --external:ws --external:node-red --external:@node-red/* --log-level=warning
fi
ir() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded "$js" --entities "$n" --updates 25000 --stage "$1" --feed "$2" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for s in $stages; do
  a=$(ir "$s" 5000)
  b=$(ir "$s" 25000)
  echo "@$n $s: $(( (b - a) / 20000 )) instructions per update"
done
