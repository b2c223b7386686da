#!/bin/bash
# One differential run of TileGym's tests on the H200 (the device tool's machine), for
# developers. Prepare here, in the repository root (all git-ignored):
#   bash ../shared/cutile-h200/pack.sh                       # .cutile/: real cuTile
#   mkdir -p .gpu && tar -C /path/to/TileGym --exclude=.git -cJf .gpu/tilegym.tar.xz .
#   strip -o .gpu/newbin build/cutile2triton                 # the converter
#   rm -rf .gpu/python && cp -r python .gpu/python           # the harness, frozen for the run
# then run `bash tools/device/run_tilegym.sh` there, carrying [".cutile", ".gpu"].
# Env: TF (test paths), TK (-k expression), NP (-n, default 16; 0 for perf runs),
# TS (--timeout per side, s), SIDE (e.g. --only-converted), TAG (output name under $OUT),
# REC (1: --print-record).
set -o pipefail
source .cutile/setup.sh || exit 1
mkdir -p /tmp/tg && tar -C /tmp/tg -xJf .gpu/tilegym.tar.xz || exit 1
export PYTHONPATH=$PWD/.gpu/python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
TAG=${TAG:-r}
args=(/tmp/tg $TF -n ${NP:-16} --converter $PWD/.gpu/newbin --timeout ${TS:-400} --json $OUT/$TAG.json $SIDE)
[ -n "$TK" ] && args+=(-k "$TK")
[ "$REC" = 1 ] && args+=(--print-record)
python3 -m cutile2triton.difftest "${args[@]}" > $OUT/$TAG.txt 2>&1
echo "rc=$?"; head -c 9000 $OUT/$TAG.txt | tail -c 6000
