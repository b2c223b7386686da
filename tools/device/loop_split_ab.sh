#!/bin/bash
# The loop split (src/lower/lower_split.c) timed against the loop kept whole (--no-loop-split),
# side by side with real cuTile, on the device tool's machine; prepared as for run_tilegym.sh
# (.cutile, .gpu/tilegym.tar.xz carried). Four parts, each in its own budget:
#   1. TileGym's MLA prefill, bfloat16 B4 H32 S4096 (tools/device/mla_config_probe.py), config
#      by config: the module converted with and without the split;
#   2. the converting skill's causal attention (tools/device/bench_skill_examples.py), once by
#      each converter;
#   3. the corpus's causal attention (test_perf_attention_causal), converted by each converter,
#      with real cuTile and SDPA in the split's run;
#   4. TileGym's test_perf ids in $IDS (a file, one id a line), converted with the split against
#      real cuTile (cutile2triton.difftest), when IDS is set.
# Env: MLA_TILES, MLA_OPTIONS (as the probe takes them), TT (whole run, s; default 540).
# Writes $OUT/mla.log, $OUT/skill_split.log, $OUT/skill_whole.log (and .json),
# $OUT/corpus_split.txt, $OUT/corpus_whole.txt, $OUT/ps.txt.
source .cutile/setup.sh >/dev/null || exit 1
make -j16 -s >/dev/null 2>&1 || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p /tmp/tg /tmp/ab && tar -C /tmp/tg -xJf .gpu/tilegym.tar.xz || exit 1
BIN=$PWD/build/cutile2triton
printf '#!/bin/bash\nexec %s --no-loop-split "$@"\n' "$BIN" > /tmp/ab/whole && chmod +x /tmp/ab/whole
$BIN /tmp/tg/src/tilegym/ops/cutile/mla.py -o /tmp/ab/mla_split.py || exit 1
/tmp/ab/whole /tmp/tg/src/tilegym/ops/cutile/mla.py -o /tmp/ab/mla_whole.py || exit 1
TT=${TT:-540}
(cd tools/device && MLA_CASES="[('bfloat16', 4096)]" MLA_TILES="${MLA_TILES:-[(64, 64), (128, 64)]}" \
  MLA_OPTIONS="${MLA_OPTIONS:-[(4, 2), (8, 2)]}" MLA_SECONDS=$((TT / 4)) \
  timeout $((TT / 4 + 20)) python3 mla_config_probe.py /tmp/ab/mla_whole.py /tmp/ab/mla_split.py > $OUT/mla.log 2>&1)
echo "mla rc=$?"; grep -v -i warn $OUT/mla.log | tail -20
for side in whole split; do
  converter=$BIN; [ $side = whole ] && converter=/tmp/ab/whole
  (cd tools/device && timeout $((TT / 6)) python3 bench_skill_examples.py \
    /tmp/tg/skills/tilegym-converting-cutile-to-triton/examples --only attention --converter $converter \
    --json $OUT/skill_$side.json > $OUT/skill_$side.log 2>&1)
  echo "skill $side rc=$?"; grep -v -i warn $OUT/skill_$side.log | tail -8
done
for side in split whole; do
  converter=$BIN; backends="triton or cutile or torch"
  [ $side = whole ] && converter=/tmp/ab/whole && backends="triton"
  C2T_BIN=$converter timeout $((TT / 6)) python3 -m pytest -q -p no:cacheprovider tests/ops/test_perf_gemm.py \
    -k "test_perf_attention_causal and ($backends)" --print-record > $OUT/corpus_$side.txt 2>&1
  echo "corpus $side rc=$?"; grep -i "attention_causal" $OUT/corpus_$side.txt | tail -8
done
if [ -n "$IDS" ]; then
  rm -rf .gpu/python && cp $BIN .gpu/newbin && cp -r python .gpu/python
  export PYTHONPATH=$PWD/.gpu/python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
  mapfile -t PERF < "$IDS"
  timeout $((TT - SECONDS)) python3 -m cutile2triton.difftest /tmp/tg "${PERF[@]}" -n 0 --converter $PWD/.gpu/newbin \
    --timeout 200 --json $OUT/ps.json --print-record > $OUT/ps.txt 2>&1
  echo "perf rc=$?"; grep "forward" $OUT/ps.txt | head -20
fi
