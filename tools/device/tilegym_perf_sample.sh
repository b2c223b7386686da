#!/bin/bash
# TileGym's test_perf, a few ids per test file, converted vs real cuTile in one run, on the
# H200 (the device tool's machine); prepared as for run_tilegym.sh (.cutile, .gpu/tilegym.tar.xz).
# Env: FILES (test files, relative to TileGym's root), PER (ids per file, default 3, spread
# over the file's perf ids in collection order), PICK (instead: the collected perf ids matching
# this extended regular expression), CHUNK (k/n: only the k-th of every n selected ids, so that
# a selection too slow for one call runs over n calls), TS (--timeout per side, s), TT (whole
# run, s).
# Writes $OUT/collect.txt, $OUT/ids.txt, $OUT/ps.txt, $OUT/ps.json; tools/device/perf_records.py
# makes the table (each side's time and the GPU time of its kernels) from ps.json.
source .cutile/setup.sh >/dev/null || exit 1
make -j16 -s >/dev/null 2>&1 || exit 1
rm -rf .gpu/python && cp build/cutile2triton .gpu/newbin && cp -r python .gpu/python
mkdir -p /tmp/tg && tar -C /tmp/tg -xJf .gpu/tilegym.tar.xz || exit 1
(cd /tmp/tg && PYTHONPATH=src:$PYTHONPATH timeout 90 python3 -m pytest --collect-only -q $FILES \
  -k "test_perf and cutile" -p no:cacheprovider) > $OUT/collect.txt 2>&1
python3 - "$OUT/collect.txt" "${PER:-3}" > $OUT/ids.txt <<'PY'
import collections, sys
ids = collections.defaultdict(list)
for line in open(sys.argv[1]):
    line = line.strip()
    if "::" in line and "test_perf" in line:
        ids[line.split("::")[0]].append(line)
per = int(sys.argv[2])
for found in ids.values():
    picks = sorted({round(i * (len(found) - 1) / max(per - 1, 1)) for i in range(per)}) if len(found) > per else range(len(found))
    for i in picks:
        print(found[i])
PY
[ -n "$PICK" ] && grep "::.*test_perf" $OUT/collect.txt | grep -E "$PICK" > $OUT/ids.txt
if [ -n "$CHUNK" ]; then
  awk -v k="${CHUNK%/*}" -v n="${CHUNK#*/}" '(NR - k) % n == 0' $OUT/ids.txt > $OUT/ids_chunk.txt
  mv $OUT/ids_chunk.txt $OUT/ids.txt
fi
mapfile -t IDS < $OUT/ids.txt
export PYTHONPATH=$PWD/.gpu/python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
timeout ${TT:-420} python3 -m cutile2triton.difftest /tmp/tg "${IDS[@]}" -n 0 --converter $PWD/.gpu/newbin \
  --timeout ${TS:-200} --json $OUT/ps.json --print-record > $OUT/ps.txt 2>&1
echo "rc=$?"; grep -A20 "^per test file" $OUT/ps.txt | head -30
