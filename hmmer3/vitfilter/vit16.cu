// The Viterbi filter in native 16x2 DPX arithmetic (appended to vit.cu,
// whose Block, helpers and shape parameters it uses). Same warp-block
// design and lazy-F chain as vit_kernel; what changes is the number
// system. A cell holds v - F in [0, 32767], F a per-target floor chosen
// on the host (gpu16.go, F = base + nmove + min tBM); DPX adds wrap, but
// adding a transition (all <= 0) to a value in [0, 32767] cannot, and a
// max with 0 (relu) puts back the floor. docs/gpu-viterbi16.md proves
// that every value that matters equals HMMER's, and which targets the
// kernel hands back (out = RESCORE) to vit_kernel: those whose scores
// could leave the window [F, F + 32767], or whose every row ended at the
// floor.
//
// D cells are stored by the node they leave: X(k) = D(k+1), so the next
// row reads D(k-1) = X(k-2), the previous pair word, without a shift.

#define RESCORE 0x7ffffffe   // out: score this target with vit_kernel
#define OVERFLOW 0x7fffffff  // out: HMMER's 16-bit overflow (+Inf)

__device__ __forceinline__ u32 max_pairs(const u32* w)
{
    u32 m = w[0];
#pragma unroll
    for (int j = 1; j + 1 < NW; j += 2) m = __vimax3_s16x2(m, w[j], w[j + 1]);
    if ((NW & 1) == 0) m = __vimax_s16x2_relu(m, w[NW - 1]);
    return m;
}

// Transitions: per thread and node pair j, two uint4 {BM, MM, IM, DM}
// and {MI, II, MD, DD}, each word the pair's two 16-bit scores; threads
// TSTRIDE uint4 apart.
extern "C" __global__ void __launch_bounds__(BLOCK)
vit16_kernel(const u32* __restrict__ emis, const uint4* __restrict__ trans,
             const unsigned char* __restrict__ res, const Block* __restrict__ blocks,
             int nblocks, unsigned int* next, int base, int emove, int eloop, int ddbound,
             int tbmmin, int lim, const int* __restrict__ move, int* __restrict__ out)
{
    u32* semis = (u32*)SHARED_BASE;
    uint4* strans = (uint4*)(semis + ((KP * EROWW + 3) & ~3));
    for (int i = threadIdx.x; i < KP * EROWW; i += blockDim.x) semis[i] = emis[i];
    for (int i = threadIdx.x; i < T * TSTRIDE; i += blockDim.x) strans[i] = trans[i];
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int g = lane / T, t = lane % T;
    const u32* myemis = semis + t * ESTRIDE;
    const uint4* mytrans = strans + t * TSTRIDE;

    for (;;) {
        int b = 0;
        if (lane == 0) b = atomicAdd(next, 1);
        b = __shfl_sync(0xffffffffu, b, 0);
        if (b >= nblocks) return;
        const Block* blk = &blocks[b];
        const int S = 32 / T;
        const bool active = g < blk->nseq;
        const int len = active ? blk->len[g] : 0;
        const int seq = active ? blk->seq[g] : 0;
        const int nmove = active ? move[seq] : 0;
        const u32* words = (const u32*)(res + blk->off);
        const int F = base + nmove + tbmmin;

        u32 Mw[NW], Iw[NW], Xw[NW];
#pragma unroll
        for (int j = 0; j < NW; j++) { Mw[j] = 0; Iw[j] = 0; Xw[j] = 0; }
        int xC = -32768, xJ = -32768;
        int xB = (short)(base + nmove);
        int state = 0;      // 0 scoring, 1 overflow, 2 rescore
        bool above = false; // some row's xE above the floor

        for (int i = 0; i < blk->maxLen; i += 4) {
            u32 four = active ? words[(i / 4) * S + g] : 0xffffffffu;
#pragma unroll 1
            for (int r = 0; r < 4; r++) {
                int x = (four >> (8 * r)) & 0xff;
                if (x >= KP) x = KP - 1;
                const u32* e = myemis + x * EROWW;
                const u32 xBv = (u32)(xB - F) * 0x10001u;
                // Previous row: the last pair of the previous thread.
                u32 cm = __shfl_up_sync(0xffffffffu, Mw[NW - 1], 1, T);
                u32 ci = __shfl_up_sync(0xffffffffu, Iw[NW - 1], 1, T);
                u32 cx = __shfl_up_sync(0xffffffffu, Xw[NW - 1], 1, T);
                if (t == 0) { cm = 0; ci = 0; cx = 0; }
#pragma unroll
                for (int j = NW - 1; j >= 0; j--) {
                    const uint4 ta = mytrans[2 * j], tb = mytrans[2 * j + 1];
                    u32 s = __viaddmax_s16x2(xBv, ta.x, 0u);
                    s = __viaddmax_s16x2(shift_in(j > 0 ? Mw[j - 1] : cm, Mw[j]), ta.y, s);
                    s = __viaddmax_s16x2(shift_in(j > 0 ? Iw[j - 1] : ci, Iw[j]), ta.z, s);
                    s = __viaddmax_s16x2(j > 0 ? Xw[j - 1] : cx, ta.w, s);
                    const u32 m = __viaddmax_s16x2(s, e[j], 0u);
                    Iw[j] = __viaddmax_s16x2(Mw[j], tb.x, __viaddmax_s16x2(Iw[j], tb.y, 0u));
                    Mw[j] = m;
                    Xw[j] = __viaddmax_s16x2(m, tb.z, 0u);
                }
                // Row maxima of M (xE) and of M->D (lazy F), both halves,
                // one 16x2 word reduced over the target's threads.
                const u32 me = max_pairs(Mw), md = max_pairs(Xw);
                u32 both = __vimax_s16x2_relu(__byte_perm(me, md, 0x5410), __byte_perm(me, md, 0x7632));
#pragma unroll
                for (int o = T / 2; o > 0; o /= 2)
                    both = __vimax_s16x2_relu(both, __shfl_xor_sync(0xffffffffu, both, o, T));
                const int xEb = (int)(both & 0xffff), dmaxb = (int)(both >> 16);
                if (i + r < len && state == 0) {
                    const int xE = xEb + F;
                    above = above || xEb > 0;
                    if (xE >= 32767) state = 1;
                    else if (xEb > lim && i + r + 1 < len) state = 2;
                    xC = (short)max(xC, xE + emove);
                    xJ = (short)max(xJ, xE + eloop);
                    xB = (short)max(xJ + nmove, base + nmove);
                }

                // Lazy F, as vit_kernel (biased: dmax + ddbound > xB).
                if (!__any_sync(0xffffffffu, dmaxb + ddbound > xB - F)) continue;
                // Each thread's chunk as the max-plus map x -> max(x + a, bb).
                int a = 0, bb = NEG;
#pragma unroll
                for (int j = 0; j < NW; j++) {
                    const u32 md2 = mytrans[2 * j + 1].z, dd2 = mytrans[2 * j + 1].w;
                    bb = max(lo16(Mw[j]) + lo16(md2), bb + lo16(dd2));
                    bb = max(hi16(Mw[j]) + hi16(md2), bb + hi16(dd2));
                    a += lo16(dd2) + hi16(dd2);
                }
#pragma unroll
                for (int o = 1; o < T; o *= 2) {
                    int pa = __shfl_up_sync(0xffffffffu, a, o, T);
                    int pb = __shfl_up_sync(0xffffffffu, bb, o, T);
                    if (t >= o) { bb = max(pb + a, bb); a = max(pa + a, NEG); }
                }
                int xprev = __shfl_up_sync(0xffffffffu, bb, 1, T);
                if (t == 0) xprev = NEG;
#pragma unroll
                for (int j = 0; j < NW; j++) {
                    const u32 md2 = mytrans[2 * j + 1].z, dd2 = mytrans[2 * j + 1].w;
                    const int x0 = max(max(lo16(Mw[j]) + lo16(md2), xprev + lo16(dd2)), 0);
                    const int x1 = max(max(hi16(Mw[j]) + hi16(md2), x0 + hi16(dd2)), 0);
                    Xw[j] = pack16(x0, x1);
                    xprev = x1;
                }
            }
        }
        if (t == 0 && active) {
            if (state == 0 && !above && len > 0) state = 2;
            out[seq] = state == 1 ? OVERFLOW : state == 2 ? RESCORE : xC;
        }
    }
}
