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
// row reads D(k-1) = X(k-2), two words back in the split layout below.

#define RESCORE 0x7ffffffe   // out: score this target with vit_kernel
#define OVERFLOW 0x7fffffff  // out: HMMER's 16-bit overflow (+Inf)

// MaxTree<N>::of(w) is the 16x2 max of w[0..N-1] by a three-way tree
// (depth log3 N, not a chain of N/2).
template <int N>
struct MaxTree {
    static __device__ __forceinline__ u32 of(const u32* w)
    {
        return __vimax3_s16x2(MaxTree<N / 3>::of(w), MaxTree<N / 3>::of(w + N / 3), MaxTree<N - 2 * (N / 3)>::of(w + 2 * (N / 3)));
    }
};
template <>
struct MaxTree<1> {
    static __device__ __forceinline__ u32 of(const u32* w) { return w[0]; }
};
template <>
struct MaxTree<2> {
    static __device__ __forceinline__ u32 of(const u32* w) { return __vimax_s16x2_relu(w[0], w[1]); }
};

__device__ __forceinline__ u32 max_pairs(const u32* w) { return MaxTree<NW>::of(w); }

// A thread's C nodes n = 0..C-1 are split in halves: word j holds nodes
// j (low 16 bits) and j + NW (high), so node n-1 of every word but the
// first is the same half of the previous word and the row needs no byte
// permutes but in word 0 (and word 1 for D). Emissions and transitions
// (per word two uint4, {BM, MM, IM, DM} and {MI, II, MD, DD}; threads
// TSTRIDE uint4 apart) are laid out so by gpu16.go.
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

        // The previous row's last words of the previous thread (its nodes
        // C-1 and C-2 are their high halves), fetched at the end of each
        // row so that the shuffles overlap the row's tail.
        u32 cm = 0, ci = 0, cx1 = 0, cx2 = 0;
        // Residues four rows at a time, the next word loaded a group ahead.
        u32 four = active ? words[g] : 0xffffffffu;
        for (int i = 0; i < blk->maxLen; i += 4) {
            const u32 nextFour = active && i + 4 < blk->maxLen ? words[(i / 4 + 1) * S + g] : 0xffffffffu;
#pragma unroll 1
            for (int r = 0; r < 4; r++) {
                int x = (four >> (8 * r)) & 0xff;
                if (x >= KP) x = KP - 1;
                const u32* e = myemis + x * EROWW;
                const u32 xBv = (u32)(xB - F) * 0x10001u;
                // This thread's last words, before the loop overwrites them.
                const u32 ml = Mw[NW - 1], il = Iw[NW - 1], xl1 = Xw[NW - 1], xl2 = Xw[NW > 1 ? NW - 2 : 0];
#pragma unroll
                for (int j = NW - 1; j >= 0; j--) {
                    const uint4 ta = mytrans[2 * j], tb = mytrans[2 * j + 1];
                    // M(k-1), I(k-1) and D(k-1) = X(k-2) of the word's nodes.
                    const u32 mp = j > 0 ? Mw[j - 1] : shift_in(cm, ml);
                    const u32 ip = j > 0 ? Iw[j - 1] : shift_in(ci, il);
                    const u32 dp = j > 1 ? Xw[j > 1 ? j - 2 : 0] : j == 1 ? shift_in(cx1, xl1) : NW > 1 ? shift_in(cx2, xl2) : cx1;
                    u32 s = __viaddmax_s16x2(xBv, ta.x, 0u);
                    s = __viaddmax_s16x2(mp, ta.y, s);
                    s = __viaddmax_s16x2(ip, ta.z, s);
                    s = __viaddmax_s16x2(dp, ta.w, s);
                    const u32 m = __viaddmax_s16x2(s, e[j], 0u);
                    Iw[j] = __viaddmax_s16x2(Mw[j], tb.x, __viaddmax_s16x2(Iw[j], tb.y, 0u));
                    Mw[j] = m;
                    Xw[j] = __viaddmax_s16x2(m, tb.z, 0u);
                }
                cm = __shfl_up_sync(0xffffffffu, Mw[NW - 1], 1, T);
                ci = __shfl_up_sync(0xffffffffu, Iw[NW - 1], 1, T);
                cx1 = __shfl_up_sync(0xffffffffu, Xw[NW - 1], 1, T);
                cx2 = __shfl_up_sync(0xffffffffu, Xw[NW > 1 ? NW - 2 : 0], 1, T);
                if (t == 0) { cm = 0; ci = 0; cx1 = 0; cx2 = 0; }
                // Lazy F, as vit_kernel, but against this row's xB: xB
                // never decreases, so a row this skips HMMER skips too,
                // and the vote need not wait for xE.
                const u32 md = max_pairs(Xw);
                const bool chain = max(lo16(md), hi16(md)) + ddbound > xB - F;
                const u32 me = max_pairs(Mw);
                int xEb = max(lo16(me), hi16(me));
#if T == 32
                xEb = __reduce_max_sync(0xffffffffu, xEb);
#else
#pragma unroll
                for (int o = T / 2; o > 0; o /= 2) xEb = max(xEb, __shfl_xor_sync(0xffffffffu, xEb, o, T));
#endif
                if (i + r < len && state == 0) {
                    const int xE = xEb + F;
                    above = above || xEb > 0;
                    if (xE >= 32767) state = 1;
                    else if (xEb > lim && i + r + 1 < len) state = 2;
                    xC = (short)max(xC, xE + emove);
                    xJ = (short)max(xJ, xE + eloop);
                    xB = (short)max(xJ + nmove, base + nmove);
                }
                if (!__any_sync(0xffffffffu, chain)) continue;

                // The full D->D chain over nodes 0..C-1 (low halves, then
                // high): each thread's chunk as the max-plus map
                // x -> max(x + a, bb), a scan over the threads, then the
                // chunk again from the true incoming value.
                int a = 0, bb = NEG;
#pragma unroll
                for (int n = 0; n < C; n++) {
                    const int j = n % NW, h = n / NW;
                    const u32 tz = mytrans[2 * j + 1].z, tw = mytrans[2 * j + 1].w;
                    const int m = h ? hi16(Mw[j]) : lo16(Mw[j]);
                    const int dd = h ? hi16(tw) : lo16(tw);
                    bb = max(m + (h ? hi16(tz) : lo16(tz)), bb + dd);
                    a += dd;
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
                for (int n = 0; n < C; n++) {
                    const int j = n % NW, h = n / NW;
                    const u32 tz = mytrans[2 * j + 1].z, tw = mytrans[2 * j + 1].w;
                    const int m = h ? hi16(Mw[j]) : lo16(Mw[j]);
                    xprev = max(max(m + (h ? hi16(tz) : lo16(tz)), xprev + (h ? hi16(tw) : lo16(tw))), 0);
                    Xw[j] = h ? (Xw[j] & 0xffffu) | ((u32)xprev << 16) : (Xw[j] & 0xffff0000u) | (u32)xprev;
                }
                cx1 = __shfl_up_sync(0xffffffffu, Xw[NW - 1], 1, T);
                cx2 = __shfl_up_sync(0xffffffffu, Xw[NW > 1 ? NW - 2 : 0], 1, T);
                if (t == 0) { cx1 = 0; cx2 = 0; }
            }
            four = nextFour;
        }
        if (t == 0 && active) {
            if (state == 0 && !above && len > 0) state = 2;
            out[seq] = state == 1 ? OVERFLOW : state == 2 ? RESCORE : xC;
        }
    }
}
