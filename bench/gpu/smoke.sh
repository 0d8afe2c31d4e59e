#!/usr/bin/env bash
# GPU smoke run. On the GPU host, from the repository root, after
# bench/gpu/build.sh has put the binaries in .dev/ (carry .dev):
#
#   bash bench/gpu/smoke.sh
#
# Runs `hmmgo gpuinfo`, every GPU package's tests (-test.v), the DPX
# check, the copy-bandwidth benchmark and, when cuobjdump is there, a look
# at the DPX kernel's machine code. Full logs go to $OUT (or
# /tmp/hmmgo-smoke); a short summary is printed last.
set -u
root=$(pwd)
out=${OUT:-/tmp/hmmgo-smoke}
mkdir -p "$out"
# A fresh kernel cache: the first compilation of each kernel is a miss,
# later ones must hit.
export HMMGO_KERNEL_CACHE="$out/kernel-cache"
rm -rf "$HMMGO_KERNEL_CACHE"

summary=()
note() { summary+=("$1"); }

for f in .dev/hmmgo .dev/cuda.test .dev/nvrtc.test .dev/devices.test .dev/gpucheck.test .dev/gpuinfo.test; do
  [ -x "$f" ] || { echo "smoke: $f missing; run bench/gpu/build.sh first and carry .dev" >&2; exit 2; }
done

{ uname -a; nvidia-smi -L 2>&1; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1; } > "$out/host.txt"
note "host: $(nvidia-smi -L 2>/dev/null | head -1 || echo 'nvidia-smi unavailable')"

# 1. gpuinfo: listing, then the end-to-end check twice (compile, then cache).
.dev/hmmgo gpuinfo --require > "$out/gpuinfo.txt" 2>&1
rc=$?
note "gpuinfo --require: exit $rc ($(grep -c '^GPU [0-9]*:' "$out/gpuinfo.txt") GPUs listed)"
.dev/hmmgo gpuinfo --check --gpu all > "$out/gpuinfo-check1.txt" 2>&1
rc1=$?
.dev/hmmgo gpuinfo --check --gpu all > "$out/gpuinfo-check2.txt" 2>&1
rc2=$?
note "gpuinfo --check: exit $rc1 then $rc2; first run: $(grep -m1 'check: *kernels' "$out/gpuinfo-check1.txt" | sed 's/^GPU 0 check: *//'); second: $(grep -m1 'check: *kernels' "$out/gpuinfo-check2.txt" | sed 's/^GPU 0 check: *//')"
note "$(grep -m1 'DPX' "$out/gpuinfo-check1.txt" | sed 's/^GPU 0 check: *//')"

# 2. Test binaries, each in its package directory as go test would run it.
for p in cuda nvrtc devices gpucheck gpuinfo; do
  (cd "gpu/$p" && "$root/.dev/$p.test" -test.v -test.count=1 -test.timeout=300s) > "$out/test-$p.log" 2>&1
  rc=$?
  pass=$(grep -c -- '^--- PASS' "$out/test-$p.log")
  fail=$(grep -c -- '^--- FAIL' "$out/test-$p.log")
  skip=$(grep -- '^--- SKIP' "$out/test-$p.log" | awk '{print $3}' | tr '\n' ' ')
  note "test $p: exit $rc, $pass passed, $fail failed${skip:+, skipped: $skip}"
done

# 3. Bandwidth: the Go benchmark (1 GiB copies, median of 20) and gpuinfo --bench.
(cd gpu/gpucheck && "$root/.dev/gpucheck.test" -test.run '^$' -test.bench CopyBandwidth -test.benchtime 1x -test.v) > "$out/bench.log" 2>&1
note "bandwidth: $(grep -m1 'device-to-device' "$out/bench.log" | sed 's/^ *gpucheck_test.go:[0-9]*: //')"
.dev/hmmgo gpuinfo --bench --gpu all > "$out/gpuinfo-bench.txt" 2>&1
note "gpuinfo --bench: exit $?"

# 4. Machine code of the DPX kernel: native DPX shows as VIADDMNMX/VIMNMX3.
if command -v cuobjdump > /dev/null; then
  for f in "$HMMGO_KERNEL_CACHE"/*.cubin; do
    cuobjdump -sass "$f" > "$out/$(basename "$f").sass" 2>&1 || continue
    if grep -q dpx_check "$out/$(basename "$f").sass"; then
      note "DPX SASS ($(basename "$f" | cut -c1-12)): $(grep -c -E 'VIADDMNMX|VIMNMX' "$out/$(basename "$f").sass") DPX instructions, $(grep -c -E 'VIADD|VIMNMX|IMNMX|VIADDMNMX' "$out/$(basename "$f").sass") integer add/min/max"
    fi
  done
else
  note "DPX SASS: cuobjdump not found; skipped"
fi

echo
echo "== hmmgo GPU smoke summary (logs in $out) =="
cat "$out/gpuinfo.txt"
printf '%s\n' "${summary[@]}"
