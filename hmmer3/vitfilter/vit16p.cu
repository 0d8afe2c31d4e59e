// vit16_kernel with the row's tail off the critical path (appended after
// vit16.cu). A row needs the previous row's xB only for the B->M entry,
// so each row runs in two passes: first everything that does not depend
// on xB (the M, I and D entries into M, and the new I cells), then the
// previous row's special states (its xE, reduced across the threads at
// the end of that row, has had the first pass to arrive), then the B->M
// entry, the match score and M->D. The numbers are vit16_kernel's.
//
// Transitions per word: uint4 {MM, IM, DM, MI} for the first pass, then
// {II, DD, BM, MD} (II first pass, BM and MD second, DD the D->D chain).

extern "C" __global__ void __launch_bounds__(BLOCK)
vit16p_kernel(const u32* __restrict__ emis, const uint4* __restrict__ trans,
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
    const u32* mywords = (const u32*)mytrans;  // word w of node pair j: mywords[8 * j + w]

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
        int prow = -1, pxE = 0;  // the row whose specials are pending, its xE - F

        // The previous row's values of the previous thread, shuffled at
        // the end of each row.
        u32 cm = 0, ci = 0, cx1 = 0, cx2 = 0;
        u32 four = active ? words[g] : 0xffffffffu;
        for (int i = 0; i < blk->maxLen; i += 4) {
            const u32 nextFour = active && i + 4 < blk->maxLen ? words[(i / 4 + 1) * S + g] : 0xffffffffu;
#pragma unroll 1
            for (int r = 0; r < 4; r++) {
                int x = (four >> (8 * r)) & 0xff;
                if (x >= KP) x = KP - 1;
                const u32* e = myemis + x * EROWW;
                const u32 ml = Mw[NW - 1], il = Iw[NW - 1], xl1 = Xw[NW - 1], xl2 = Xw[NW > 1 ? NW - 2 : 0];
                // First pass: Mw[j] becomes the entries into M other than B.
#pragma unroll
                for (int j = NW - 1; j >= 0; j--) {
                    const uint4 ta = mytrans[2 * j];
                    const u32 mp = j > 0 ? Mw[j - 1] : shift_in(cm, ml);
                    const u32 ip = j > 0 ? Iw[j - 1] : shift_in(ci, il);
                    const u32 dp = j > 1 ? Xw[j > 1 ? j - 2 : 0] : j == 1 ? shift_in(cx1, xl1) : NW > 1 ? shift_in(cx2, xl2) : cx1;
                    u32 s = __viaddmax_s16x2(mp, ta.x, 0u);
                    s = __viaddmax_s16x2(ip, ta.y, s);
                    s = __viaddmax_s16x2(dp, ta.z, s);
                    Iw[j] = __viaddmax_s16x2(Mw[j], ta.w, __viaddmax_s16x2(Iw[j], mywords[8 * j + 4], 0u));
                    Mw[j] = s;
                }
                // The previous row's special states.
                if (prow >= 0 && prow < len && state == 0) {
                    const int xE = pxE + F;
                    above = above || pxE > 0;
                    if (xE >= 32767) state = 1;
                    else if (pxE > lim && prow + 1 < len) state = 2;
                    xC = (short)max(xC, xE + emove);
                    xJ = (short)max(xJ, xE + eloop);
                    xB = (short)max(xJ + nmove, base + nmove);
                }
                // Second pass: B->M, the match score, M->D.
                const u32 xBv = (u32)(xB - F) * 0x10001u;
#pragma unroll
                for (int j = NW - 1; j >= 0; j--) {
                    const uint2 bm = *(const uint2*)(mywords + 8 * j + 6);
                    const u32 m = __viaddmax_s16x2(__viaddmax_s16x2(xBv, bm.x, Mw[j]), e[j], 0u);
                    Mw[j] = m;
                    Xw[j] = __viaddmax_s16x2(m, bm.y, 0u);
                }
                cm = __shfl_up_sync(0xffffffffu, Mw[NW - 1], 1, T);
                ci = __shfl_up_sync(0xffffffffu, Iw[NW - 1], 1, T);
                cx1 = __shfl_up_sync(0xffffffffu, Xw[NW - 1], 1, T);
                cx2 = __shfl_up_sync(0xffffffffu, Xw[NW > 1 ? NW - 2 : 0], 1, T);
                if (t == 0) { cm = 0; ci = 0; cx1 = 0; cx2 = 0; }
                // Lazy F against this row's xB (see vit16_kernel).
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
                prow = i + r;
                pxE = xEb;
                if (!__any_sync(0xffffffffu, chain)) continue;

                // The full D->D chain, as vit16_kernel.
                int a = 0, bb = NEG;
#pragma unroll
                for (int n = 0; n < C; n++) {
                    const int j = n % NW, h = n / NW;
                    const u32 tdd = mywords[8 * j + 5], tmd = mywords[8 * j + 7];
                    const int m = h ? hi16(Mw[j]) : lo16(Mw[j]);
                    const int dd = h ? hi16(tdd) : lo16(tdd);
                    bb = max(m + (h ? hi16(tmd) : lo16(tmd)), bb + dd);
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
                    const u32 tdd = mywords[8 * j + 5], tmd = mywords[8 * j + 7];
                    const int m = h ? hi16(Mw[j]) : lo16(Mw[j]);
                    xprev = max(max(m + (h ? hi16(tmd) : lo16(tmd)), xprev + (h ? hi16(tdd) : lo16(tdd))), 0);
                    Xw[j] = h ? (Xw[j] & 0xffffu) | ((u32)xprev << 16) : (Xw[j] & 0xffff0000u) | (u32)xprev;
                }
                cx1 = __shfl_up_sync(0xffffffffu, Xw[NW - 1], 1, T);
                cx2 = __shfl_up_sync(0xffffffffu, Xw[NW > 1 ? NW - 2 : 0], 1, T);
                if (t == 0) { cx1 = 0; cx2 = 0; }
            }
            four = nextFour;
        }
        // The last row's special states.
        if (prow >= 0 && prow < len && state == 0) {
            const int xE = pxE + F;
            above = above || pxE > 0;
            if (xE >= 32767) state = 1;
            xC = (short)max(xC, xE + emove);
        }
        if (t == 0 && active) {
            if (state == 0 && !above && len > 0) state = 2;
            out[seq] = state == 1 ? OVERFLOW : state == 2 ? RESCORE : xC;
        }
    }
}
