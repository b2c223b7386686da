#!/bin/bash
# Persistent GEMMs with their tile loop as converted against `tl.range(..., flatten=True)` (Triton
# fuses the tile loop with the K loop, so the next tile's loads can overlap this tile's epilogue),
# side by side with real cuTile, on the device tool's machine (.cutile and .gpu/tilegym.tar.xz
# carried, as for run_tilegym.sh):
#   1. TileGym's static persistent matmul, float16 2048^3 to 8192^3
#      (tools/device/persistent_gemm_flatten_probe.py: each side runs the module's own search);
#   2. the corpus's gemm_persistent (test_perf_gemm_persistent): converted, cuTile and torch, then
#      converted by a wrapper that flattens its tile loop.
# Env: PT (part 1's limit, s; default 300). Writes $OUT/flatten.log (.json), $OUT/corpus_persistent.txt,
# $OUT/corpus_persistent_flat.txt.
source .cutile/setup.sh >/dev/null || exit 1
make -j16 -s >/dev/null 2>&1 || exit 1
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
mkdir -p /tmp/tg /tmp/pf && tar -C /tmp/tg -xJf .gpu/tilegym.tar.xz || exit 1
BIN=$PWD/build/cutile2triton
$BIN /tmp/tg/src/tilegym/ops/cutile/matmul.py -o /tmp/pf/matmul_c.py || exit 1
(cd tools/device && PYTHONPATH=/tmp/tg/src timeout ${PT:-300} python3 persistent_gemm_flatten_probe.py \
  /tmp/pf/matmul_c.py $OUT/flatten.json > $OUT/flatten.log 2>&1)
echo "probe rc=$?"; grep -v -i warn $OUT/flatten.log | tail -12
# a converter that writes the corpus kernel's tile loop as tl.range(..., flatten=True)
cat > /tmp/pf/flat <<EOW
#!/bin/bash
$BIN "\$@" || exit \$?
for a in "\$@"; do out=\$a; done
sed -i -E 's/^(    for tile in )range\((tl\.program_id\(0\), tiles_m \* tiles_n, tl\.num_programs\(0\))\):/\1tl.range(\2, flatten=True):/' "\$out"
grep -q "flatten=True" "\$out" || { echo "the tile loop is not where the wrapper expects it" >&2; exit 1; }
EOW
chmod +x /tmp/pf/flat
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/ops/test_perf_gemm.py -k "test_perf_gemm_persistent" \
  --print-record > $OUT/corpus_persistent.txt 2>&1
echo "corpus rc=$?"; grep -i "gemm_persistent" $OUT/corpus_persistent.txt | tail -12
C2T_BIN=/tmp/pf/flat timeout 100 python3 -m pytest -q -p no:cacheprovider tests/ops/test_perf_gemm.py \
  -k "test_perf_gemm_persistent and triton" --print-record > $OUT/corpus_persistent_flat.txt 2>&1
echo "corpus flat rc=$?"; grep -i "gemm_persistent" $OUT/corpus_persistent_flat.txt | tail -6
