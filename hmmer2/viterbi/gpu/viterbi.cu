// HMMER 2.3.2's integer Viterbi score (P7Viterbi, score only) on the
// GPU, identical to viterbi.ScoreOne for every sequence.
//
// Layout. A group of G = T*W threads scores one sequence; thread r of
// the group owns C consecutive model nodes and keeps their M, I and D
// cells of the previous row in registers as int32. With W == 1 a warp
// holds S = 32/T groups (sequences of similar length, from the
// length-sorted warp blocks of hmmer3/gpudb) and all exchanges are warp
// shuffles; with W > 1 the block is one group and warps exchange through
// shared memory. Nodes are dealt so that every thread has C or C-1 real
// nodes (ranks below EXTRA have C); the slot C-1 of a short rank is
// padding whose values are never read by a real node and never reach E.
//
// Exactness. Every cell is computed with the very sums of HMMER2's C
// code in int32 two's complement (__viaddmax_s32 and wadd wrap, as the C
// additions do on x86-64), and every -INFTY clamp sits where HMMER2 has
// it. Only max operations are regrouped: max(max(a,b),c) == max(a,max(b,c))
// for any int32 values, so the order of comparisons cannot matter. The
// one recurrence that crosses threads inside a row is D(k) = max(D(k-1) +
// dd(k-1), M(k-1) + md(k-1), -INFTY). It is evaluated exactly, not
// reassociated: each thread runs its own chunk sequentially from an
// incoming D(k0-1), first guessed (-INFTY), then taken from its
// neighbour's latest result, and the passes repeat until no thread's
// outgoing D changes. At that point every chunk was computed from the
// value its predecessor now holds, so the whole row satisfies the
// recurrence, whose solution from D(0) = -INFTY is unique: the values are
// HMMER2's. (Rank 0 is exact after the first pass, rank r after pass
// r+1 at the latest, so the loop ends.)
//
// Compile-time parameters: T, W, C, EXTRA, KP (residue codes), BLOCK,
// TRANS_SHARED, EMIS_SHARED (tables copied to shared memory or read from
// global memory through the read-only cache).

typedef unsigned int u32;

#define NEGINF (-987654321)  // HMMER2's -INFTY
#define G (T * W)
#define S (32 / T)           // sequences per warp block (1 when W > 1)
#define FULL 0xffffffffu

// Block is hmmer3/gpudb's warp-block table entry.
struct Block {
    int seq[32];
    int len[32];
    int maxLen;
    int nseq;
    long long off;
};

// wadd is HMMER2's int addition: two's complement, wrapping.
__device__ __forceinline__ int wadd(int a, int b) { return (int)((u32)a + (u32)b); }
// addmax(a, b, c) = max(a + b, c) with a wrapping addition.
__device__ __forceinline__ int addmax(int a, int b, int c) { return __viaddmax_s32(a, b, c); }

#define ROUND16(n) (((n) + 15) & ~15)
#define TRANS_BYTES (TRANS_SHARED ? 2 * 16 * C * G + ROUND16(4 * C * G) : 0)
#define EMIS_BYTES (EMIS_SHARED ? 8 * KP * C * G : 0)

// Exchange slots of a multi-warp group (ints): new M and I of each warp's
// last node by row parity, pass-0 D, later D by pass parity, warp E
// maxima, and the work item.
#define X_M 0
#define X_I (2 * W)
#define X_D0 (4 * W)
#define X_D (5 * W)
#define X_XE (7 * W)
#define X_BLK (8 * W)

// Value of the last real node of this thread (slot C-1, or C-2 on a
// short rank).
#if EXTRA > 0 && C > 1
#define LAST(a) (isShort ? a[C - 2] : a[C - 1])
#else
#define LAST(a) (a[C - 1])
#endif

#ifndef SHARED_BASE
extern __shared__ __align__(16) unsigned char h2vit_smem[];
#define SHARED_BASE h2vit_smem
#endif

extern "C" __global__ void __launch_bounds__(BLOCK)
h2vit_kernel(const int4* __restrict__ gA, const int4* __restrict__ gB, const int* __restrict__ gE,
             const int2* __restrict__ gEmis, const unsigned char* __restrict__ res,
             const Block* __restrict__ blocks, int nblocks, unsigned int* next,
             const int* __restrict__ xsc, int* __restrict__ out)
{
    unsigned char* sp = (unsigned char*)SHARED_BASE;
#if TRANS_SHARED
    int4* tA = (int4*)sp;
    int4* tB = (int4*)(sp + 16 * C * G);
    int* tE = (int*)(sp + 32 * C * G);
    for (int i = threadIdx.x; i < C * G; i += BLOCK) {
        tA[i] = gA[i];
        tB[i] = gB[i];
        tE[i] = gE[i];
    }
#else
    const int4* tA = gA;
    const int4* tB = gB;
    const int* tE = gE;
#endif
#if EMIS_SHARED
    int2* tEm = (int2*)(sp + TRANS_BYTES);
    for (int i = threadIdx.x; i < KP * C * G; i += BLOCK) tEm[i] = gEmis[i];
#else
    const int2* tEm = gEmis;
#endif
#if W > 1
    volatile int* xch = (volatile int*)(sp + TRANS_BYTES + EMIS_BYTES);
#endif
    __syncthreads();

    const int nloop = xsc[0], nmove = xsc[1], eloop = xsc[2], emove = xsc[3];
    const int cloop = xsc[4], cmove = xsc[5], jloop = xsc[6], jmove = xsc[7];
    const int lane = threadIdx.x & 31;
#if W == 1
    const int g = lane / T, r = lane % T;
#else
    const int g = 0, r = threadIdx.x;
    const int warp = threadIdx.x >> 5;
#endif
    const bool isShort = EXTRA > 0 && r >= EXTRA;
    (void)isShort;

    for (;;) {
        int b;
#if W == 1
        b = 0;
        if (lane == 0) b = (int)atomicAdd(next, 1u);
        b = __shfl_sync(FULL, b, 0);
#else
        if (threadIdx.x == 0) xch[X_BLK] = (int)atomicAdd(next, 1u);
        __syncthreads();
        b = xch[X_BLK];
        __syncthreads();
#endif
        if (b >= nblocks) return;
        const Block* blk = &blocks[b];
        const bool active = g < blk->nseq;
        const int len = active ? blk->len[g] : 0;
        const int seq = active ? blk->seq[g] : 0;
        const int maxLen = blk->maxLen;
        const u32* words = (const u32*)(res + blk->off);

        int Mv[C], Iv[C], Dv[C], src[C], dd[C];
#pragma unroll
        for (int j = 0; j < C; j++) { Mv[j] = NEGINF; Iv[j] = NEGINF; Dv[j] = NEGINF; }
        int xn = 0, xb = nmove, xj = NEGINF, xc = NEGINF;
        int pfin = 0;  // parity of the slot that holds the last row's final D (W > 1)
        (void)pfin;
        u32 four = 0;

        for (int i = 0; i < maxLen; i++) {
            if ((i & 3) == 0) four = active ? words[(i >> 2) * S + g] : 0xffffffffu;
            int x = (four >> (8 * (i & 3))) & 0xff;
            if (x >= KP) x = 0;  // padding after the end: any code, the row is not used

            // Previous row's M, I, D of node k0-1 (the last node of rank r-1).
            int pm, pi, pd;
            {
                int lm = LAST(Mv), li = LAST(Iv), ld = LAST(Dv);
#if W == 1
                pm = __shfl_up_sync(FULL, lm, 1, T);
                pi = __shfl_up_sync(FULL, li, 1, T);
                pd = __shfl_up_sync(FULL, ld, 1, T);
                if (r == 0) { pm = NEGINF; pi = NEGINF; pd = NEGINF; }
#else
                pm = __shfl_up_sync(FULL, lm, 1);
                pi = __shfl_up_sync(FULL, li, 1);
                pd = __shfl_up_sync(FULL, ld, 1);
                if (lane == 0) {
                    if (warp == 0 || i == 0) {
                        pm = NEGINF; pi = NEGINF; pd = NEGINF;
                    } else {
                        pm = xch[X_M + ((i - 1) & 1) * W + warp - 1];
                        pi = xch[X_I + ((i - 1) & 1) * W + warp - 1];
                        pd = xch[X_D + pfin * W + warp - 1];
                    }
                }
#endif
            }

            // M and I cells, the best M->E, and the M->D sources of nodes
            // 2..C of the chunk.
            const int4* a = tA + r;
            const int4* bq = tB + r;
            const int* ep = tE + r;
            const int2* em = tEm + x * (C * G) + r;
            int xe = NEGINF, md0 = 0;
#pragma unroll
            for (int j = 0; j < C; j++) {
                const int4 ta = a[j * G];
                const int4 tb = bq[j * G];
                const int esc = ep[j * G];
                const int2 e = em[j * G];
                int v = wadd(pm, ta.x);   // M(k-1) + tmm
                v = addmax(pi, ta.y, v);  // I(k-1) + tim
                v = addmax(pd, ta.z, v);  // D(k-1) + tdm
                v = addmax(xb, ta.w, v);  // B + bsc
                v = addmax(v, e.x, NEGINF);
                int iv = addmax(Iv[j], tb.w, wadd(Mv[j], tb.z));
                iv = addmax(iv, e.y, NEGINF);
                int toE = wadd(v, esc);
#if EXTRA > 0 && C > 1
                if (j == C - 1 && isShort) toE = NEGINF;  // padding slot
#endif
                xe = max(xe, toE);
                if (j == 0) md0 = tb.x;
                else src[j] = addmax(Mv[j - 1], tb.x, NEGINF);  // new M(k-1) + tmd, clamped
                dd[j] = tb.y;
                pm = Mv[j]; pi = Iv[j]; pd = Dv[j];
                Mv[j] = v;
                Iv[j] = iv;
            }

            // Pass 0 of the D chain, from a guessed D(k0-1) = -INFTY and
            // M(k0-1) = -INFTY (lower bounds: the true values are >= -INFTY).
            src[0] = addmax(NEGINF, md0, NEGINF);
#pragma unroll
            for (int j = 0, d = NEGINF; j < C; j++) { d = addmax(d, dd[j], src[j]); Dv[j] = d; }
            int dlast = LAST(Dv);
            const int mlast = LAST(Mv);

            // Exchange: the neighbour's new M(k0-1) and pass-0 D(k0-1); E
            // over the group.
            int nm, nd;
#if W == 1
#pragma unroll
            for (int o = T / 2; o > 0; o /= 2) xe = max(xe, __shfl_xor_sync(FULL, xe, o, T));
            nm = __shfl_up_sync(FULL, mlast, 1, T);
            nd = __shfl_up_sync(FULL, dlast, 1, T);
            if (r == 0) { nm = NEGINF; nd = NEGINF; }
#else
#pragma unroll
            for (int o = 16; o > 0; o /= 2) xe = max(xe, __shfl_xor_sync(FULL, xe, o));
            if (lane == 31) {
                xch[X_M + (i & 1) * W + warp] = mlast;
                xch[X_I + (i & 1) * W + warp] = LAST(Iv);
                xch[X_D0 + warp] = dlast;
            }
            if (lane == 0) xch[X_XE + warp] = xe;
            __syncthreads();
            xe = lane < W ? xch[X_XE + lane] : NEGINF;
#pragma unroll
            for (int o = 16; o > 0; o /= 2) xe = max(xe, __shfl_xor_sync(FULL, xe, o));
            nm = __shfl_up_sync(FULL, mlast, 1);
            nd = __shfl_up_sync(FULL, dlast, 1);
            if (lane == 0) {
                nm = warp == 0 ? NEGINF : xch[X_M + (i & 1) * W + warp - 1];
                nd = warp == 0 ? NEGINF : xch[X_D0 + warp - 1];
            }
#endif

            // Pass 1 with the true M(k0-1) and the neighbour's pass-0 D,
            // then more passes while an outgoing D changes.
            src[0] = addmax(nm, md0, NEGINF);
            int used = nd;
            {
                int d = nd;
#pragma unroll
                for (int j = 0; j < C; j++) { d = addmax(d, dd[j], src[j]); Dv[j] = d; }
            }
            int prev = dlast;
            dlast = LAST(Dv);
            bool changed = dlast != prev;
#if W == 1
            while (__any_sync(FULL, changed)) {
                nd = __shfl_up_sync(FULL, dlast, 1, T);
                if (r == 0) nd = NEGINF;
                changed = false;
                if (nd != used) {
                    used = nd;
                    int d = nd;
#pragma unroll
                    for (int j = 0; j < C; j++) { d = addmax(d, dd[j], src[j]); Dv[j] = d; }
                    prev = dlast;
                    dlast = LAST(Dv);
                    changed = dlast != prev;
                }
            }
#else
            int p = 0;
            if (lane == 31) xch[X_D + p * W + warp] = dlast;
            while (__syncthreads_or(changed)) {
                nd = __shfl_up_sync(FULL, dlast, 1);
                if (lane == 0) nd = warp == 0 ? NEGINF : xch[X_D + p * W + warp - 1];
                changed = false;
                if (nd != used) {
                    used = nd;
                    int d = nd;
#pragma unroll
                    for (int j = 0; j < C; j++) { d = addmax(d, dd[j], src[j]); Dv[j] = d; }
                    prev = dlast;
                    dlast = LAST(Dv);
                    changed = dlast != prev;
                }
                p ^= 1;
                if (lane == 31) xch[X_D + p * W + warp] = dlast;
            }
            pfin = p;
#endif

            // Special states, in HMMER2's order, while the sequence lasts.
            if (i < len) {
                xn = max(wadd(xn, nloop), NEGINF);
                xj = max(max(wadd(xj, jloop), NEGINF), wadd(xe, eloop));
                xb = max(max(wadd(xn, nmove), NEGINF), wadd(xj, jmove));
                xc = max(max(wadd(xc, cloop), NEGINF), wadd(xe, emove));
            }
        }
        if (r == 0 && active) out[seq] = wadd(xc, cmove);
    }
}
