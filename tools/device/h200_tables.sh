#!/bin/bash
# The tables issues 10 and 11 ask for, measured on the device tool's machine, one part per call
# (each fits the 600 s a call may take). Prepare here as for tilegym_perf_sample.sh (.cutile,
# .gpu/tilegym.tar.xz), carry [".cutile", ".gpu"] (move tests/golden and docs/perf aside first:
# a call carries 64 MiB at most), and run `PART=... bash tools/device/h200_tables.sh`:
#   corpus    the corpus's whole benchmark suite, converted against real cuTile and torch
#             (about 420 s on the H200); $OUT/corpus.txt, $OUT/corpus.json
#   skill     the converting skill's four examples against hand-written Triton, cuTile and the
#             vendor (torch, cuBLAS, SDPA); $OUT/skill.txt
#   norms     every perf id of TileGym's RMSNorm, RoPE, layer-norm, dropout, SiLU-and-mul and
#             SwiGLU tests; $OUT/ps.txt, $OUT/records.txt
#   matrix    TileGym's matrix perf files (about 500 ids) in CHUNK=k/n slices (default 1/12;
#             12 calls cover them)
# Every part prints the GPU's name first: compare only figures of one card.
nvidia-smi --query-gpu=name --format=csv,noheader | tee $OUT/gpu.txt
source .cutile/setup.sh >/dev/null || exit 1
make -j16 -s >/dev/null 2>&1 || exit 1
case "$PART" in
corpus)
  timeout 560 python3 -m pytest -q -p no:cacheprovider tests/ops -k test_perf --print-record > $OUT/corpus.txt 2>&1
  echo "pytest rc=$?"
  cp build/perf/last_run.json $OUT/corpus.json 2>/dev/null
  grep -E "MISS|passed|failed" $OUT/corpus.txt | tail -n 20
  ;;
skill)
  mkdir -p /tmp/tg && tar -C /tmp/tg -xJf .gpu/tilegym.tar.xz || exit 1
  (cd tools/device && timeout 540 python3 bench_skill_examples.py \
    /tmp/tg/skills/tilegym-converting-cutile-to-triton/examples --converter ../../build/cutile2triton) \
    > $OUT/skill.txt 2>&1
  echo "bench rc=$?"
  cat $OUT/skill.txt
  ;;
norms)
  FILES="tests/ops/test_rms_norm.py tests/ops/test_rope.py tests/ops/test_layer_norm_legacy.py \
tests/ops/test_dropout.py tests/ops/test_silu_and_mul.py tests/ops/test_swiglu.py" \
    PER=100 TS=260 TT=540 bash tools/device/tilegym_perf_sample.sh
  python3 tools/device/perf_records.py $OUT/ps.json > $OUT/records.txt 2>&1
  tail -n 80 $OUT/records.txt
  ;;
matrix)
  FILES="tests/ops/test_matmul.py tests/ops/test_group_gemm.py tests/ops/test_bmm.py \
tests/ops/test_attention.py tests/ops/test_flash_decode.py tests/ops/test_mla.py \
tests/ops/test_mla_decoding.py tests/ops/test_mla_decoding_split_kv.py tests/ops/test_splitk_reduce.py \
tests/ops/test_attention_sink.py tests/ops/test_gemma_attention.py tests/ops/test_gemma_attention_decode.py \
tests/ops/test_moe.py tests/ops/test_chunk_gated_delta_rule.py tests/ops/test_recurrent_gated_delta_rule.py" \
    PER=1000 CHUNK=${CHUNK:-1/12} TS=260 TT=540 bash tools/device/tilegym_perf_sample.sh
  python3 tools/device/perf_records.py $OUT/ps.json > $OUT/records.txt 2>&1
  tail -n 80 $OUT/records.txt
  ;;
*)
  echo "PART must be corpus, skill, norms or matrix" >&2
  exit 2
  ;;
esac
