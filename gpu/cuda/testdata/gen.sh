#!/bin/sh
# Regenerates kernels.ptx from kernels.cu with clang's NVPTX back end
# (Debian: apt-get install clang). sm_75 PTX runs on every GPU that CUDA 13
# supports: the driver compiles it for the device at load time.
set -e
cd "$(dirname "$0")"
clang -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_75 \
  -O2 -S -o kernels.ptx kernels.cu
