// Which pipe and rate on sm_90 (docs/hmm2search.md, "FP32 cells"): FMNMX, FADD, DPX add-max
// (VIADDMNMX), integer max, FADD+FMNMX mixed and IADD. Each thread runs 8 independent chains;
// one 8-warp block a multiprocessor; clock64 per block. Build on a GPU host:
//   nvcc -arch=sm_90 -O3 -o pipes bench/gpu/sm90_pipes.cu && ./pipes
// Check the SASS (cuobjdump -sass pipes): ptxas fuses pairs of integer maxima (VIMNMX3) and
// additions (IADD3), so those two lines count PTX operations, not instructions.
#include <cstdio>
#include <cuda_runtime.h>
#define N 4096
template <int OP>
__global__ void k(float a, int ia, float* of, int* oi, long long* cyc)
{
    float f[8]; int x[8];
#pragma unroll
    for (int i = 0; i < 8; i++) { f[i] = threadIdx.x * 0.25f + i; x[i] = threadIdx.x + i; }
    __syncthreads();
    long long t0 = clock64();
    for (int it = 0; it < N; it++) {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            if (OP == 0) asm volatile("max.f32 %0, %0, %1;" : "+f"(f[i]) : "f"(a));
            if (OP == 1) asm volatile("add.f32 %0, %0, %1;" : "+f"(f[i]) : "f"(a));
            if (OP == 2) x[i] = __viaddmax_s32(x[i], ia, x[(i + 1) & 7]);
            if (OP == 3) asm volatile("max.s32 %0, %0, %1;" : "+r"(x[i]) : "r"(ia));
            if (OP == 4) { asm volatile("add.f32 %0, %0, %1;" : "+f"(f[i]) : "f"(a)); asm volatile("max.f32 %0, %0, %1;" : "+f"(f[(i + 4) & 7]) : "f"(a)); }
            if (OP == 5) asm volatile("add.s32 %0, %0, %1;" : "+r"(x[i]) : "r"(ia));
        }
    }
    __syncthreads();
    long long t1 = clock64();
    float s = 0; int si = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) { s += f[i]; si += x[i]; }
    of[blockIdx.x * blockDim.x + threadIdx.x] = s;
    oi[blockIdx.x * blockDim.x + threadIdx.x] = si;
    if (threadIdx.x == 0) cyc[blockIdx.x] = t1 - t0;
}
template <int OP>
void run(const char* name, int nsm, int perOp)
{
    const int block = 256, grid = nsm;  // one 8-warp block per multiprocessor
    float* of; int* oi; long long* cyc;
    cudaMalloc(&of, 4 * grid * block); cudaMalloc(&oi, 4 * grid * block); cudaMalloc(&cyc, 8 * grid);
    k<OP><<<grid, block>>>(1.0f, 1, of, oi, cyc);
    k<OP><<<grid, block>>>(1.0f, 1, of, oi, cyc);
    cudaDeviceSynchronize();
    long long h[1024]; cudaMemcpy(h, cyc, 8 * grid, cudaMemcpyDeviceToHost);
    double c = 0; for (int i = 0; i < grid; i++) c += h[i]; c /= grid;
    double warpInstr = (double)(block / 32) * N * 8 * perOp;
    printf("%-28s %6.2f warp instructions a clock a multiprocessor (4 = full rate)\n", name, warpInstr / c);
    cudaFree(of); cudaFree(oi); cudaFree(cyc);
}
int main()
{
    int nsm; cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0);
    run<0>("FMNMX (max.f32)", nsm, 1);
    run<1>("FADD (add.f32)", nsm, 1);
    run<2>("VIADDMNMX (__viaddmax_s32)", nsm, 1);
    run<3>("IMNMX (max.s32)", nsm, 1);
    run<4>("FADD + FMNMX, 1:1", nsm, 2);
    run<5>("IADD (add.s32)", nsm, 1);
    return 0;
}
