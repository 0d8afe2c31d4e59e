#!/usr/bin/env bash
# GPU workers of the Redis work queue, on the GPU host. Build here first
# (bench/gpu/build_queue.sh), then on the GPU host, from the repository
# root, with .dev/queue carried:
#   bash bench/gpu/queue.sh exact     GPU workers give the CPU's results:
#                                     the task runner on the GPU against the
#                                     CPU pipeline; the worker end-to-end tests
#                                     with every worker on --gpu; hmmsearch
#                                     --gpu's end-to-end tests (its GPU code
#                                     was refactored for the workers)
#   bash bench/gpu/queue.sh scale     bench/queue_scaling.sh gpu: one GPU
#                                     worker against one per GPU, and the ratio
#   bash bench/gpu/queue.sh all       both
# Output in $OUT (or /tmp/hmmgo-queue); a summary on stdout.
set -u
cd "$(dirname "$0")/../.."
q=$(pwd)/.dev/queue
out=${OUT:-/tmp/hmmgo-queue}
mkdir -p "$out"
[ -x "$q/hmmgo" ] || { echo "queue.sh: $q/hmmgo missing; run bench/gpu/build_queue.sh and carry .dev/queue" >&2; exit 2; }
export HMMGO_KERNEL_CACHE=${HMMGO_KERNEL_CACHE:-$out/kernel-cache}
what=${1:-all}
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader > "$out/host.txt" 2>&1
echo "host: $(nproc) cores; $(tr '\n' ';' < "$out/host.txt")"
if [ "$what" = exact ] || [ "$what" = all ]; then
	(cd hmmer3/hmmsearch && "$q/hmmsearch.test" -test.v -test.run 'TestGPUTasksMatchCPU|TestStagedTasksMatchCPU' -test.timeout 300s) > "$out/tasks.log" 2>&1
	echo "task runner, GPU vs CPU: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/tasks.log" | tr '\n' ' ')"
	grep -E 'identical|differs|no usable GPU' "$out/tasks.log" | head -5
	(cd internal/workercmd && PATH="$q/redis:$PATH" HMMGO_BIN="$q/hmmgo" HMMGO_WORKER_OPTS=--gpu \
		"$q/workercmd.test" -test.v -test.timeout 300s) > "$out/workers.log" 2>&1
	echo "worker end-to-end, every worker --gpu: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/workers.log" | tr '\n' ' ')"
	grep -E 'differs|failed|timed out' "$out/workers.log" | head -5
	(cd hmmer3/hmmsearch && HMMGO_E2E_OPTS=--gpu "$q/hmmsearch.test" -test.run 'TestEndToEnd$' -test.timeout 500s) > "$out/hmmsearch-gpu.log" 2>&1
	echo "hmmsearch --gpu end-to-end: $(grep -E '^(--- |ok|FAIL|PASS)' "$out/hmmsearch-gpu.log" | tr '\n' ' ')"
fi
if [ "$what" = scale ] || [ "$what" = all ]; then
	OUT="$out/scale" bash bench/queue_scaling.sh gpu "$q/hmmgo" "$q/redis/redis-server" 2>&1 | tee "$out/scale.txt"
fi
