// The Viterbi filter on the GPU, bit-exact with HMMER 3.3.2's 16-bit
// saturating p7_ViterbiFilter. Same warp-block design as the SSV/MSV
// kernels: a warp aligns S = 32/T targets of similar length in lock-step,
// T threads per target, each thread owning C consecutive nodes whose M, I
// and D cells are kept in registers as packed 16-bit pairs.
//
// Arithmetic is done in 32-bit and saturated explicitly: DPX additions
// wrap, and HMMER's -32768 is a saturating floor, not an absorbing -inf.
// Transitions are never positive, so a floor applied once after a max of
// sums equals HMMER's saturation of each sum.
//
// D->D paths are evaluated lazily, as HMMER's "lazy F" does: a row keeps
// its M->D values unless the largest of them plus the model's ddbound
// exceeds xB. Then the chain, which crosses threads, is computed exactly:
// each thread summarises its chunk as a max-plus map x -> max(x + a, b),
// a shuffle scan composes the maps, and a second pass recomputes the
// chunk from the true incoming value.
//
// Compile-time parameters: T, C (even), KP (codes + 1 padding), BLOCK.

typedef unsigned int u32;

#define NW (C / 2)
#define ESTRIDE (NW | 1)          // emission words between threads (odd: no bank conflicts)
#define EROWW (T * ESTRIDE)       // emission words per residue code
#define TSTRIDE (C | 1)           // transition entries between threads
#define NEG (-(1 << 28))          // "minus infinity" that cannot overflow when summed

struct Block {
    int seq[32];
    int len[32];
    int maxLen;
    int nseq;
    long long off;
};

__device__ __forceinline__ int lo16(u32 w) { return (int)(short)(w & 0xffff); }
__device__ __forceinline__ int hi16(u32 w) { return ((int)w) >> 16; }
__device__ __forceinline__ u32 pack16(int lo, int hi) { return (u32)(lo & 0xffff) | ((u32)hi << 16); }
__device__ __forceinline__ u32 shift_in(u32 lo_word, u32 hi_word) { return __byte_perm(lo_word, hi_word, 0x5432); }
__device__ __forceinline__ int floor16(int v) { return max(v, -32768); }

// Shared memory: emissions [KP][T][ESTRIDE] words (pairs), then transitions
// into/within each node [T][TSTRIDE] uint4 {BM|MM<<16, IM|DM<<16, MI|II<<16,
// MD|DD<<16}.
#ifndef SHARED_BASE
extern __shared__ __align__(16) unsigned char vit_smem[];
#define SHARED_BASE vit_smem
#endif

#ifndef VIT16_ONLY  // vit16.cu's programs leave this kernel out
extern "C" __global__ void __launch_bounds__(BLOCK)
vit_kernel(const u32* __restrict__ emis, const uint4* __restrict__ trans,
           const unsigned char* __restrict__ res, const Block* __restrict__ blocks,
           int nblocks, unsigned int* next, int base, int emove, int eloop, int ddbound,
           const int* __restrict__ move, int* __restrict__ out)
{
    u32* smem = (u32*)SHARED_BASE;
    u32* semis = smem;
    uint4* strans = (uint4*)(smem + ((KP * EROWW + 3) & ~3));  // 16-byte aligned
    for (int i = threadIdx.x; i < KP * EROWW; i += blockDim.x) semis[i] = emis[i];
    for (int i = threadIdx.x; i < T * TSTRIDE; i += blockDim.x) strans[i] = trans[i];
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int g = lane / T, t = lane % T;
    const u32* myemis = semis + t * ESTRIDE;
    const uint4* mytrans = strans + t * TSTRIDE;
    const u32 NEGW = pack16(-32768, -32768);

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

        u32 Mw[NW], Iw[NW], Dw[NW];
#pragma unroll
        for (int j = 0; j < NW; j++) { Mw[j] = NEGW; Iw[j] = NEGW; Dw[j] = NEGW; }
        int xN = base, xJ = -32768, xC = -32768, overflow = 0;
        int xB = (short)(xN + nmove);

        for (int i = 0; i < blk->maxLen; i += 4) {
            u32 four = active ? words[(i / 4) * S + g] : 0xffffffffu;
#pragma unroll 1
            for (int r = 0; r < 4; r++) {
                int x = (four >> (8 * r)) & 0xff;
                if (x >= KP) x = KP - 1;
                const u32* e = myemis + x * EROWW;
                // Previous row, last node of the previous thread (node k0-1).
                u32 cm = __shfl_up_sync(0xffffffffu, Mw[NW - 1], 1, T);
                u32 ci = __shfl_up_sync(0xffffffffu, Iw[NW - 1], 1, T);
                u32 cd = __shfl_up_sync(0xffffffffu, Dw[NW - 1], 1, T);
                if (t == 0) { cm = NEGW; ci = NEGW; cd = NEGW; }
                int xE = -32768, dmax = -32768, dout = -32768;
                u32 Dn[NW];   // this row's M->D values (HMMER's D cells when D->D is skipped)
#pragma unroll
                for (int j = NW - 1; j >= 0; j--) {
                    u32 md = shift_in(j > 0 ? Mw[j - 1] : cm, Mw[j]);
                    u32 id = shift_in(j > 0 ? Iw[j - 1] : ci, Iw[j]);
                    u32 dd = shift_in(j > 0 ? Dw[j - 1] : cd, Dw[j]);
                    u32 ew = e[j];
                    int mnew[2], inew[2], dnext[2];
#pragma unroll
                    for (int h = 0; h < 2; h++) {
                        uint4 tr = mytrans[2 * j + h];
                        int mprev = h ? hi16(md) : lo16(md);
                        int iprev = h ? hi16(id) : lo16(id);
                        int dprev = h ? hi16(dd) : lo16(dd);
                        int v = __viaddmax_s32(xB, lo16(tr.x), -32768);
                        v = __viaddmax_s32(mprev, hi16(tr.x), v);
                        v = __viaddmax_s32(iprev, lo16(tr.y), v);
                        v = __viaddmax_s32(dprev, hi16(tr.y), v);
                        v = max(__viaddmin_s32(v, h ? hi16(ew) : lo16(ew), 32767), -32768);
                        mnew[h] = v;
                        xE = max(xE, v);
                        int mk = h ? hi16(Mw[j]) : lo16(Mw[j]);
                        int ik = h ? hi16(Iw[j]) : lo16(Iw[j]);
                        inew[h] = __viaddmax_s32(mk, lo16(tr.z), __viaddmax_s32(ik, hi16(tr.z), -32768));
                        dnext[h] = __viaddmax_s32(v, lo16(tr.w), -32768);   // M(k)+MD(k) -> D(k+1)
                        dmax = max(dmax, dnext[h]);
                    }
                    Mw[j] = pack16(mnew[0], mnew[1]);
                    Iw[j] = pack16(inew[0], inew[1]);
                    // D of node b is M(a)+MD(a); node a of the next pair gets M(b)+MD(b).
                    Dn[j] = ((u32)dnext[0]) << 16;
                    if (j + 1 < NW) Dn[j + 1] = (Dn[j + 1] & 0xffff0000u) | ((u32)dnext[1] & 0xffffu);
                    else dout = dnext[1];
                }
                {
                    int din = __shfl_up_sync(0xffffffffu, dout, 1, T);
                    if (t == 0) din = -32768;
                    Dn[0] = (Dn[0] & 0xffff0000u) | ((u32)din & 0xffffu);
                }

#pragma unroll
                for (int o = T / 2; o > 0; o /= 2) {
                    xE = max(xE, __shfl_xor_sync(0xffffffffu, xE, o, T));
                    dmax = max(dmax, __shfl_xor_sync(0xffffffffu, dmax, o, T));
                }
                if (i + r < len && !overflow) {
                    if (xE >= 32767) overflow = 1;
                    xC = (short)max(xC, xE + emove);
                    xJ = (short)max(xJ, xE + eloop);
                    xB = (short)max(xJ + nmove, xN + nmove);
                }

                // Lazy F (as HMMER): D->D paths can only matter to the next
                // row when dmax + ddbound > xB; then run the full chain.
                if (!__any_sync(0xffffffffu, dmax + ddbound > xB)) {
#pragma unroll
                    for (int j = 0; j < NW; j++) Dw[j] = Dn[j];
                    continue;
                }
                // Full chain: summarise the chunk as x -> max(x + a, b), scan, recompute.
                int a = 0, bb = NEG, dloc = NEG;
#pragma unroll
                for (int j = 0; j < C; j++) {
                    u32 w = mytrans[j].w;
                    int m = (j & 1) ? hi16(Mw[j / 2]) : lo16(Mw[j / 2]);
                    dloc = max(m + lo16(w), dloc + hi16(w));
                    a += hi16(w);
                }
                bb = dloc;
#pragma unroll
                for (int o = 1; o < T; o *= 2) {
                    int pa = __shfl_up_sync(0xffffffffu, a, o, T);
                    int pb = __shfl_up_sync(0xffffffffu, bb, o, T);
                    if (t >= o) { bb = max(pb + a, bb); a = max(pa + a, NEG); }
                }
                int din = __shfl_up_sync(0xffffffffu, bb, 1, T);
                if (t == 0) din = NEG;
                int dcur = din;
#pragma unroll
                for (int j = 0; j < C; j += 2) {
                    int d0 = floor16(dcur);
                    u32 w0 = mytrans[j].w;
                    int m0 = lo16(Mw[j / 2]);
                    dcur = max(m0 + lo16(w0), d0 + hi16(w0));
                    int d1 = floor16(dcur);
                    u32 w1 = mytrans[j + 1].w;
                    int m1 = hi16(Mw[j / 2]);
                    dcur = max(m1 + lo16(w1), d1 + hi16(w1));
                    Dw[j / 2] = pack16(d0, d1);
                }
            }
        }
        if (t == 0 && active) out[seq] = overflow ? 0x7fffffff : xC;
    }
}
#endif  // VIT16_ONLY
