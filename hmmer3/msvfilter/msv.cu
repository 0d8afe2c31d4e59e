// SSV and MSV filters on the GPU, bit-exact with HMMER 3.3.2's byte
// arithmetic, in the design of CUDAMPF/CUDAMPF++: a warp runs S = 32/T
// sequences of similar length in lock-step, T threads per sequence, each
// thread holding C consecutive model nodes as 16-bit lanes packed in
// pairs, so a cell update is one Hopper DPX instruction per two cells.
// The row-to-row diagonal shift is a byte permute inside a thread and one
// shuffle between neighbouring threads; no block-level synchronisation is
// needed after the profile is in shared memory.
//
// Compile-time parameters (#defines the host prepends): T threads per
// sequence (power of two, 1..32), C nodes per thread (even), KP residue
// codes plus one padding code (KP-1) that ends every diagonal, BLOCK
// threads per CUDA block, SSV_COPIES copies of SSV's profile in shared
// memory (1 or 32/T; see below), SSV_ROWS and MSV_ROWS rows a step in
// ssv_kernel and msv_kernel (1 or 2; see there), MSV_XB_APART (see
// msv_kernel), MSV_SPEC (see msv_rows4_spec).
//
// Arithmetic. SSV cells are kept as w = v+128 of HMMER's signed SSV cell
// v: w' = max(w + s, 0) with s = bias - cost. HMMER's overflow test is
// exactly "some w >= 127-bias"; until a cell gets there nothing saturates,
// so plain 16-bit lanes reproduce it (the host applies the test). MSV
// cells are HMMER's unsigned bytes, m' = max(min(max(m, xB) + bias, 255)
// - cost, 0), computed without the cap up to the first overflow
// (msv_kernel has the argument).

#ifndef SSV_ROWS
#define SSV_ROWS 1
#endif
#ifndef MSV_ROWS
#define MSV_ROWS 1
#endif
#define NW (C / 2)             // packed words per thread
// Words between threads: odd, so a warp's reads hit 32 banks; with two
// rows a step (SSV_ROWS or MSV_ROWS = 2) at least NW + 1 (the shifted
// table's rows).
#if SSV_ROWS == 2 || MSV_ROWS == 2
#define STRIDE ((NW + 1) | 1)
#else
#define STRIDE (NW | 1)
#endif
#define ROWW (T * STRIDE)      // words per residue code

typedef unsigned int u32;

// The profile's shared memory (the CPU shim names its own).
#ifndef SHARED_BASE
extern __shared__ __align__(16) unsigned char msv_smem[];
#define SHARED_BASE msv_smem
#endif

// All cells here are >= 0, so the relu form of the two-way DPX max is a
// plain max.

// One warp block: S sequences (by index), padded length, residue offset.
// Residues are laid out [L/4][S][4 bytes]: group g reads a word holding
// four consecutive residues of its sequence, and a warp's S words are
// contiguous (coalesced).
struct Block {
    int seq[32];
    int len[32];
    int maxLen;   // multiple of 4
    int nseq;
    long long off;
};

__device__ __forceinline__ u32 shift_in(u32 lo_word, u32 hi_word) {
    // (hi16 of lo_word, lo16 of hi_word): the pair one node to the left.
    return __byte_perm(lo_word, hi_word, 0x5432);
}

__device__ __forceinline__ int hmax16(u32 v) {
    int a = (short)(v & 0xffff), b = (short)(v >> 16);
    return a > b ? a : b;
}

// residue_code is the code of row r of a word of four residues; padding
// (0xff) and any code past the profile read its last row.
__device__ __forceinline__ int residue_code(u32 four, int r) {
    int x = (four >> (8 * r)) & 0xff;
    return x < KP ? x : KP - 1;
}

// left_carry is the previous row's cell of the node before this thread's
// first: the previous thread's last word, or 0 (begin) for thread 0.
__device__ __forceinline__ u32 left_carry(u32 last, int t) {
    if (T == 1) return 0;
    u32 c = __shfl_up_sync(0xffffffffu, last, 1, T);
    return t == 0 ? 0 : c;
}

// claim_block is the warp's next warp block (one atomic for the warp).
__device__ __forceinline__ int claim_block(unsigned int* next, int lane) {
    int b = 0;
    if (lane == 0) b = atomicAdd(next, 1);
    return __shfl_sync(0xffffffffu, b, 0);
}

// msv_kernel fetches residue words MSV_PF words (4*MSV_PF rows) ahead:
// its rows depend on each other, so a load issued only when needed costs
// its whole latency every fourth row, and one issued four rows ahead
// still most of it (global memory takes hundreds of cycles; four rows
// of a small model, tens), and its longest targets run alone. Measured
// on an H100 (docs/BENCHMARKS.md, "SSV and the MSV pass at small M"):
// 8 words instead of 1 shortened the pass at NW = 5 and 7 (M = 10, 50);
// the pass with 8 (NW = 7, M = 100) and 4 (NW = 13, T = 8 and 32:
// M = 200, 800) was shorter than base's; at NW = 13 with T = 1 (M = 25)
// 4 and 8 were slower than 1 (the unrolled rows outgrow the instruction
// cache?), and at NW = 38 (M = 2405) 2 was slower than base's 1.
// ssv_kernel, with many warps a scheduler, fetches one word ahead: 4
// words ahead measured 4-8% slower at M = 10, 25, 50.
#ifndef MSV_PF
#define MSV_PF (NW <= 8 ? 8 : (NW <= 16 && T > 1 ? 4 : 1))
#endif

// SSV's profile in shared memory. With SSV_COPIES = 1 one table, rows of
// ROWW words: the S groups of a warp read the rows of their own residues,
// and rows x and x + 32/T start on the same bank, so groups can collide
// (a bank conflict replays the load). With SSV_COPIES = S each group
// reads a copy of its own, rows padded to a multiple of 32 words and
// copy g shifted by g*T*STRIDE words: lane (g, t) then reads bank
// STRIDE*(g*T + t) + j (mod 32) whatever the residue, 32 different
// banks, at S times the shared memory.
// With SSV_ROWS = 2 a copy holds two tables (ssv_kernel), one after the
// other.
#if SSV_COPIES > 1
#define SSV_ROWW ((ROWW + 31) & ~31)
#define SSV_COPYW (SSV_ROWS * KP * SSV_ROWW + 32)
#else
#define SSV_ROWW ROWW
#define SSV_COPYW (SSV_ROWS * KP * ROWW)
#endif

// fold_max is max(xE, the row's cells): the row's max as a tree of
// three-way maxima, then one max with xE, so that xE's chain from row to
// row is one instruction, not NW/2 (as many instructions as folding the
// cells into xE one after another). N is NW, or NW + 1 (SSV_ROWS = 2).
template <int N>
__device__ __forceinline__ u32 fold_max(u32 xE, const u32 (&w)[N])
{
    if constexpr (N == 1) {
        return __vimax_s16x2_relu(xE, w[0]);
    } else if constexpr (N == 2) {
        return __vimax3_s16x2(xE, w[0], w[1]);
    } else {
        u32 m = __vimax3_s16x2(w[0], w[1], w[2]);
#pragma unroll
        for (int j = 3; j + 1 < N; j += 2) m = __vimax3_s16x2(m, w[j], w[j + 1]);
        if constexpr (N % 2 == 0) return __vimax3_s16x2(xE, m, w[N - 1]);
        else return __vimax_s16x2_relu(xE, m);
    }
}

// tree_max is the max of N words of cells (all >= 0), a chain of
// three-way maxima.
template <int N>
__device__ __forceinline__ u32 tree_max(const u32 (&w)[N])
{
    if constexpr (N == 1) {
        return w[0];
    } else if constexpr (N == 2) {
        return __vimax_s16x2_relu(w[0], w[1]);
    } else {
        u32 m = __vimax3_s16x2(w[0], w[1], w[2]);
#pragma unroll
        for (int j = 3; j + 1 < N; j += 2) m = __vimax3_s16x2(m, w[j], w[j + 1]);
        if constexpr (N % 2 == 0) m = __vimax_s16x2_relu(m, w[N - 1]);
        return m;
    }
}

// fold_max2 is fold_max over two rows' words, xE's chain one instruction.
template <int N1, int N2>
__device__ __forceinline__ u32 fold_max2(u32 xE, const u32 (&a)[N1], const u32 (&b)[N2])
{
    return __vimax3_s16x2(xE, tree_max(a), tree_max(b));
}

// SSV: each target's best diagonal cell, max'd into out (zeroed by the
// host) with atomicMax, so that a layout may hold a long target as
// several windows (gpudb/window.go: the max over windows that overlap by
// at least M-1 residues is the target's own; the argument is there).
extern "C" __global__ void __launch_bounds__(BLOCK)
ssv_kernel(const u32* __restrict__ prof, const unsigned char* __restrict__ res,
           const Block* __restrict__ blocks, int nblocks, unsigned int* next,
           unsigned int* __restrict__ out)
{
    u32* sprof = (u32*)SHARED_BASE;
    for (int i = threadIdx.x; i < SSV_COPIES * SSV_ROWS * KP * ROWW; i += blockDim.x) {
        int copy = i / (SSV_ROWS * KP * ROWW), r = i % (SSV_ROWS * KP * ROWW);
        int shift = SSV_COPIES > 1 ? (copy * T * STRIDE) % 32 : 0;
        sprof[copy * SSV_COPYW + shift + (r / ROWW) * SSV_ROWW + r % ROWW] = prof[r];
    }
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int g = lane / T, t = lane % T;
    const int copy = SSV_COPIES > 1 ? g : 0;
    const u32* myprof = sprof + copy * SSV_COPYW + (SSV_COPIES > 1 ? (copy * T * STRIDE) % 32 : 0) + t * STRIDE;

    for (;;) {
        const int b = claim_block(next, lane);
        if (b >= nblocks) return;
        const Block* blk = &blocks[b];
        const int S = 32 / T;
        const bool active = g < blk->nseq;
        const int maxLen = blk->maxLen;
        const u32* words = (const u32*)(res + blk->off);

        u32 w[NW];
#pragma unroll
        for (int j = 0; j < NW; j++) w[j] = 0;
        u32 xE = 0;

        // The next four residues are fetched while this four's rows run:
        // a warp's rows depend on each other, so a load issued only when
        // needed costs its whole latency every fourth row.
        u32 four = active && maxLen > 0 ? words[g] : 0xffffffffu;
        for (int i = 0; i < maxLen; i += 4) {
            u32 ahead = active && i + 4 < maxLen ? words[(i / 4 + 1) * S + g] : 0xffffffffu;
#if SSV_ROWS == 2
            // Two rows a step, with no byte permute: a word j holds nodes
            // 2j+1, 2j+2 (of the thread's) in rows i-1 and i+1 and nodes
            // 2j, 2j+1 in row i, so each row's word takes the previous
            // row's word j-1 whole. Row i reads the second table, the
            // profile shifted by one node (word j: nodes 2j, 2j+1; word
            // NW: the node after the thread's last, whose row-i cell the
            // last thread must count; global node 0 is padding). The
            // previous thread's last word is exchanged once per two rows.
#pragma unroll
            for (int r = 0; r < 4; r += 2) {
                const u32* sb = myprof + (KP + residue_code(four, r)) * SSV_ROWW;
                const u32* sa = myprof + residue_code(four, r + 1) * SSV_ROWW;
                const u32 carry = left_carry(w[NW - 1], t);
                u32 u[NW + 1];
                u[0] = __viaddmax_s16x2(carry, sb[0], 0u);
#pragma unroll
                for (int j = 1; j <= NW; j++) u[j] = __viaddmax_s16x2(w[j - 1], sb[j], 0u);
#pragma unroll
                for (int j = 0; j < NW; j++) w[j] = __viaddmax_s16x2(u[j], sa[j], 0u);
                xE = fold_max2(xE, u, w);
            }
#else
#pragma unroll
            for (int r = 0; r < 4; r++) {
                const u32* s = myprof + residue_code(four, r) * SSV_ROWW;
                const u32 carry = left_carry(w[NW - 1], t);
#pragma unroll
                for (int j = NW - 1; j >= 0; j--) {
                    u32 prev = (j > 0) ? w[j - 1] : carry;
                    w[j] = __viaddmax_s16x2(shift_in(prev, w[j]), s[j], 0u);
                }
                xE = fold_max(xE, w);
            }
#endif
            four = ahead;
        }
        int m = hmax16(xE);
        for (int o = T / 2; o > 0; o /= 2) m = max(m, __shfl_down_sync(0xffffffffu, m, o, T));
        if (t == 0 && active) atomicMax(&out[blk->seq[g]], (unsigned int)m);
    }
}

// pair16 is v in both 16-bit halves.
__device__ __forceinline__ u32 pair16(int v) { return ((u32)v & 0xffffu) * 0x10001u; }

// span_max is the max of w[Lo..Lo+Len), a balanced tree of three-way
// maxima (depth log3 Len: a row's max is on msv_kernel's row chain).
// All cells are >= 0.
template <int Lo, int Len, int N>
__device__ __forceinline__ u32 span_max(const u32 (&w)[N])
{
    if constexpr (Len == 1) {
        return w[Lo];
    } else if constexpr (Len == 2) {
        return __vimax_s16x2_relu(w[Lo], w[Lo + 1]);
    } else {
        constexpr int a = (Len + 2) / 3, b = (Len - a + 1) / 2;
        return __vimax3_s16x2(span_max<Lo, a>(w), span_max<Lo + a, b>(w), span_max<Lo + a + b, Len - a - b>(w));
    }
}

// row_max is the max of a row's cells over the T threads of a target, in
// both halves: a tree over the thread's N words, the halves swapped and
// max'd, then the threads' maxima exchanged.
template <int N>
__device__ __forceinline__ u32 row_max(const u32 (&w)[N])
{
    u32 m = span_max<0, N>(w);
    m = __vimax_s16x2_relu(m, __byte_perm(m, 0, 0x1032));
    for (int o = T / 2; o > 0; o /= 2) m = __vimax_s16x2_relu(m, __shfl_xor_sync(0xffffffffu, m, o, T));
    return m;
}

#ifndef MSV_XB_APART
#define MSV_XB_APART (T <= 4)
#endif

// MsvState is one target's running state in msv_kernel: xB, its copy
// clipped for the cells (xBc), and the max over rows of e - K.
struct MsvState {
    u32 xBv, xBc, eKm;
};

// msv_cell is one word (two cells) of a row from the previous row's
// diagonal neighbours u: h(max(u, xB)) with h(y) = max(y + bias - cost,
// 0), s the word's bias - cost. With MSV_XB_APART it also leaves the
// cells without xB's share in hu (the row max is taken over those).
__device__ __forceinline__ u32 msv_cell(u32 u, u32 s, u32 xBc, u32& hu)
{
#if MSV_XB_APART
    hu = __viaddmax_s16x2(u, s, 0u);
    return __vimax_s16x2_relu(hu, __viaddmax_s16x2(xBc, s, 0u));
#else
    return hu = __viaddmax_s16x2(__vimax_s16x2_relu(u, xBc), s, 0u);
#endif
}

// msv_end_row folds a row's max (e: of hu, the cells without xB's share
// with MSV_XB_APART, else of the cells) into the state, x the row's
// residue code.
__device__ __forceinline__ void msv_end_row(MsvState& st, u32 e, const int* bestRow, int x, int K, u32 negKv, u32 capBv)
{
#if MSV_XB_APART
    // e's xB share is h(xB) at the row's best bias - cost: one step.
    const u32 bestSKv = pair16(bestRow[x] - K);
    st.xBv = __viaddmax_s16x2(e, negKv, __viaddmax_s16x2(st.xBc, bestSKv, st.xBv));
    st.eKm = __viaddmax_s16x2(e, negKv, __viaddmax_s16x2(st.xBc, bestSKv, st.eKm));
#else
    st.xBv = __viaddmax_s16x2(e, negKv, st.xBv);
    st.eKm = __viaddmax_s16x2(e, negKv, st.eKm);
#endif
    st.xBc = __viaddmin_s16x2(st.xBv, 0u, capBv);
}

// msv_rows4 runs msv_kernel's four rows of one word of residues: the
// cells w and the state (msv_kernel has the argument). With MSV_ROWS = 2
// it takes them two at a time, as ssv_kernel does: the middle row's word
// j holds nodes 2j, 2j+1 (the second table, shifted by one node), so
// each row's word takes the previous row's word j-1 whole and no byte
// permute is needed; word NW, nodes C and C+1 (the thread's last and the
// next thread's first), is a correct cell too, and counted in the max.
__device__ __forceinline__ void msv_rows4(const u32 four, const u32* myprof, const int* bestRow, int t, int K, u32 negKv,
                                          u32 capBv, u32 (&w)[NW], MsvState& st)
{
#if MSV_ROWS == 2
#pragma unroll
    for (int r = 0; r < 4; r += 2) {
        const int xb = residue_code(four, r), xa = residue_code(four, r + 1);
        const u32* sb = myprof + (KP + xb) * ROWW;
        const u32* sa = myprof + xa * ROWW;
        const u32 carry = left_carry(w[NW - 1], t);
        u32 u[NW + 1], hu[NW + 1];
        u[0] = msv_cell(carry, sb[0], st.xBc, hu[0]);
#pragma unroll
        for (int j = 1; j <= NW; j++) u[j] = msv_cell(w[j - 1], sb[j], st.xBc, hu[j]);
        msv_end_row(st, row_max(hu), bestRow, xb, K, negKv, capBv);
        u32 hw[NW];
#pragma unroll
        for (int j = 0; j < NW; j++) w[j] = msv_cell(u[j], sa[j], st.xBc, hw[j]);
        msv_end_row(st, row_max(hw), bestRow, xa, K, negKv, capBv);
    }
#else
#pragma unroll
    for (int r = 0; r < 4; r++) {
        const int x = residue_code(four, r);
        const u32* s = myprof + x * ROWW;
        const u32 carry = left_carry(w[NW - 1], t);
        u32 hu[NW];
#pragma unroll
        for (int j = NW - 1; j >= 0; j--) {
            u32 prev = (j > 0) ? w[j - 1] : carry;
            w[j] = msv_cell(shift_in(prev, w[j]), s[j], st.xBc, hu[j]);
        }
        msv_end_row(st, row_max(hu), bestRow, x, K, negKv, capBv);
    }
#endif
}

// MSV_SPEC (msv_rows4_spec) measured on an H100 (docs/BENCHMARKS.md,
// "The MSV pass with xB guessed"): the MSV program over all targets
// 1.2-1.5x faster at M = 16..47 (T = 1), the pass shorter at M = 10..100
// (T = 1 and 8 with up to 8 words a thread), 1.5% longer at M = 800
// (T = 32, 13 words).
#ifndef MSV_SPEC
#define MSV_SPEC (T == 1 || NW <= 8)
#endif

// spec_cell is a cell with xB fixed: max(max(u, xc) + s, 0) as
// max(u + s, h) with h = max(xc + s, 0), which needs no cell, so the
// row-to-row chain is one DPX operation per word (msv_cell's value).
__device__ __forceinline__ u32 spec_cell(u32 u, u32 s, u32 xc)
{
    return __viaddmax_s16x2(u, s, __viaddmax_s16x2(xc, s, 0u));
}

// msv_rows4_spec runs the four rows of one word of residues as
// msv_rows4 does, with the rows' xB guessed instead of chained. A row's
// xB is max(xB, e - K) over the rows before it, so each row of msv_rows4
// waits for the previous row's max; but xB rarely rises (on
// TestGPUThroughput's database, 1.4-1.6 times a target at M = 10..40).
// So the rows run with the xB of each row given (at first the entering
// xB for all four), which takes the row max off the chain; then the xB
// each row should have had is made from the rows' e (p_0 = the entering
// xB, p_{r+1} = max(p_r, e_r - K)); where it differs from the one given,
// the four rows run again with the new values. This is exact: the loop
// ends only when every row ran with p_r of its own rows' maxima, which
// is msv_rows4's recurrence; and it ends within four runs, since run k
// makes p_0..p_k right (row 0's xB is the entering one, and a row that
// ran with the right xB has the right e). The warp runs as long as its
// slowest target (one vote a run), the others repeat their rows
// unchanged; with T > 1 the row max shuffles, so all lanes run.
__device__ __forceinline__ void msv_rows4_spec(const u32 four, const u32* myprof, int t, u32 negKv, u32 capBv,
                                               u32 (&w)[NW], MsvState& st)
{
    const u32* s[4];
#pragma unroll
    for (int r = 0; r < 4; r++) {
        // With two rows a step the first of each pair reads the table
        // shifted by one node (msv_rows4).
        const int table = MSV_ROWS == 2 && r % 2 == 0 ? KP : 0;
        s[r] = myprof + (table + residue_code(four, r)) * ROWW;
    }
    u32 xs[4] = {st.xBv, st.xBv, st.xBv, st.xBv};
    u32 e[4], out[NW];
#pragma unroll 1
    for (int run = 0; run < 4; run++) {
        u32 cur[NW];
#pragma unroll
        for (int j = 0; j < NW; j++) cur[j] = w[j];
#if MSV_ROWS == 2
#pragma unroll
        for (int r = 0; r < 4; r += 2) {
            const u32 xb = __viaddmin_s16x2(xs[r], 0u, capBv), xa = __viaddmin_s16x2(xs[r + 1], 0u, capBv);
            const u32 carry = left_carry(cur[NW - 1], t);
            u32 u[NW + 1];
            u[0] = spec_cell(carry, s[r][0], xb);
#pragma unroll
            for (int j = 1; j <= NW; j++) u[j] = spec_cell(cur[j - 1], s[r][j], xb);
#pragma unroll
            for (int j = 0; j < NW; j++) cur[j] = spec_cell(u[j], s[r + 1][j], xa);
            e[r] = row_max(u);
            e[r + 1] = row_max(cur);
        }
#else
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const u32 xc = __viaddmin_s16x2(xs[r], 0u, capBv);
            const u32 carry = left_carry(cur[NW - 1], t);
#pragma unroll
            for (int j = NW - 1; j >= 0; j--) cur[j] = spec_cell(shift_in(j > 0 ? cur[j - 1] : carry, cur[j]), s[r][j], xc);
            e[r] = row_max(cur);
        }
#endif
#pragma unroll
        for (int j = 0; j < NW; j++) out[j] = cur[j];
        bool same = true;
        u32 p = st.xBv;
#pragma unroll
        for (int r = 0; r < 3; r++) {
            p = __viaddmax_s16x2(e[r], negKv, p);
            same = same && p == xs[r + 1];
            xs[r + 1] = p;
        }
        if (!__any_sync(0xffffffffu, !same)) break;
    }
#pragma unroll
    for (int j = 0; j < NW; j++) w[j] = out[j];
    st.xBv = __viaddmax_s16x2(e[3], negKv, xs[3]);
    st.eKm = __viaddmax_s16x2(__vimax3_s16x2(e[0], e[1], __vimax_s16x2_relu(e[2], e[3])), negKv, st.eKm);
    st.xBc = __viaddmin_s16x2(st.xBv, 0u, capBv);
}

// msv_walk runs rows [from, to) (multiples of 4, the same for the whole
// warp) of slot g of a warp block of S slots from the cells w and the
// state st, MSV_PF residue words fetched ahead.
__device__ __forceinline__ void msv_walk(const u32* words, int S, int g, bool active, int from, int to,
                                         const u32* myprof, const int* bestRow, int t, int K, u32 negKv, u32 capBv,
                                         u32 (&w)[NW], MsvState& st)
{
    u32 q[MSV_PF]; // the next MSV_PF words, a ring
#pragma unroll
    for (int k = 0; k < MSV_PF; k++) q[k] = active && from + 4 * k < to ? words[(from / 4 + k) * S + g] : 0xffffffffu;
    for (int i = from; i < to; i += 4 * MSV_PF) {
#pragma unroll
        for (int k = 0; k < MSV_PF; k++) {
            if (i + 4 * k < to) { // the same for the whole warp
                const u32 four = q[k];
                const int n = i + 4 * (k + MSV_PF);
                q[k] = active && n < to ? words[(n / 4) * S + g] : 0xffffffffu;
#if MSV_SPEC
                msv_rows4_spec(four, myprof, t, negKv, capBv, w, st);
#else
                msv_rows4(four, myprof, bestRow, t, K, negKv, capBv, w, st);
#endif
            }
        }
    }
}

// msv_result is a target's output from its best row cell emax (the max
// over rows of e): 0xffff when HMMER's byte arithmetic overflows (some
// e + bias >= 255), else the final xJ, max(emax - tec, 0).
__device__ __forceinline__ unsigned short msv_result(int emax, int bias, int tec)
{
    return emax + bias >= 255 ? 0xffffu : (unsigned short)max(emax - tec, 0);
}

// msv_block runs msv_kernel's program over the targets of one warp
// block (thread t of the T of slot g) and writes their results.
__device__ __forceinline__ void msv_block(const Block* blk, const unsigned char* res, const int* tjbm, int g, int t,
                                          const u32* myprof, const int* bestRow, u32 capBv, int bias, int base, int tec,
                                          unsigned short* out)
{
    const int S = 32 / T;
    const bool active = g < blk->nseq;
    const int seq = active ? blk->seq[g] : 0;
    const int tjbm_g = active ? tjbm[seq] : 0;
    const u32* words = (const u32*)(res + blk->off);

    u32 w[NW];
#pragma unroll
    for (int j = 0; j < NW; j++) w[j] = 0;

    // Each row waits for the previous row's xB, so whatever sits on
    // that chain is paid on every row of the longest target: this
    // pass runs on few targets (those SSV leaves undecided), and its
    // time is that target's rows times the chain. What keeps the
    // chain short:
    // - The special states fold into one running max. With e a row's
    //   best cell and K = tec + tjbm, HMMER's xJ = max(xJ, e - tec, 0)
    //   and xB = max(max(base, xJ) - tjbm, 0) give xB' = max(xB,
    //   e - K) (xB starts at max(base - tjbm, 0) >= -tjbm), and the
    //   final xJ is max(max over rows of e - tec, 0): xJ is never
    //   needed along the way. Overflow (some e + bias >= 255) is that
    //   same max of e, also off the chain. Padding rows (after a
    //   target's end) have every cell 0, so e = 0 changes neither.
    // - xB, e and their maxima are 16-bit pairs with both halves
    //   equal, so that the chain is DPX operations only.
    // - Residues load MSV_PF words ahead, and row maxima are trees.
    // - No saturation at 255 in the cells. HMMER's cell is
    //   min(max(u, xB) + bias, 255) - cost, clipped at 0, with u the
    //   previous row's cell on the diagonal. Until the first row
    //   whose best cell e has e + bias >= 255 (overflow: the result
    //   is then 0xffff whatever follows) every u has u + bias < 255,
    //   so the cap can bind only on xB: with xBc = min(xB,
    //   255 - bias) the cell is max(max(u, xBc) + bias - cost, 0),
    //   one DPX add-max on a profile of bias - cost. Every row up to
    //   and including the first overflow is then HMMER's; after it,
    //   cells may exceed 255 (and wrap past 32767 to below 0, where
    //   the clip at 0 takes them), but the max of e only grows, so
    //   the overflow stands.
    // - With MSV_XB_APART, xB enters a row's max apart from the
    //   cells: with h_k(y) = max(y + bias - cost_k, 0), nondecreasing
    //   in y, a cell is h_k(max(u_k, xBc)) = max(h_k(u_k), h_k(xBc)),
    //   so the row's max is the max of h_k(u_k), which needs no xB,
    //   and of h_k(xBc) over k, which is h at the row's best
    //   bias - cost: one step after xB. That costs one more DPX
    //   instruction per cell pair, which pays only while a thread's
    //   nodes are few (T <= 4, M < 96; measured 13-16% slower at
    //   M = 800 and 2405, 20-35% faster at M <= 50).
    const int K = tec + tjbm_g;
    const u32 negKv = pair16(-K);
    MsvState st;
    st.xBv = pair16(max(base - tjbm_g, 0));
    st.xBc = __viaddmin_s16x2(st.xBv, 0u, capBv);
    st.eKm = negKv; // max over rows of e - K (e >= 0)
    msv_walk(words, S, g, active, 0, blk->maxLen, myprof, bestRow, t, K, negKv, capBv, w, st);
    const int emax = (short)(st.eKm & 0xffff) + K;
    if (t == 0 && active) out[seq] = msv_result(emax, bias, tec);
}

// load_msv_profile copies the MSV pass's profile into shared memory and
// returns its table of best rows. prof: the bias - cost pairs (MSV_ROWS *
// KP * ROWW words), then per residue code the largest bias - cost of its
// row over all nodes (padding nodes included).
__device__ __forceinline__ const int* load_msv_profile(const u32* __restrict__ prof, u32* sprof)
{
    for (int i = threadIdx.x; i < MSV_ROWS * KP * ROWW + KP; i += blockDim.x) sprof[i] = prof[i];
    __syncthreads();
    return (const int*)(sprof + MSV_ROWS * KP * ROWW);
}

// MSV: the full program with the J state, for the targets SSV leaves
// undecided. prof holds bias - cost pairs (MSV_ROWS tables, as
// ssv_kernel's) and each residue's best bias - cost (host:
// msvProfileWords); result per sequence is xJ, or 0xffff for byte
// overflow.
extern "C" __global__ void __launch_bounds__(BLOCK)
msv_kernel(const u32* __restrict__ prof, const unsigned char* __restrict__ res,
           const Block* __restrict__ blocks, int nblocks, unsigned int* next,
           int bias, int base, int tec, const int* __restrict__ tjbm,
           unsigned short* __restrict__ out)
{
    u32* sprof = (u32*)SHARED_BASE;
    const int* bestRow = load_msv_profile(prof, sprof);

    const int lane = threadIdx.x & 31;
    const int g = lane / T, t = lane % T;
    const u32* myprof = sprof + t * STRIDE;
    const u32 capBv = pair16(255 - bias);

    for (;;) {
        const int b = claim_block(next, lane);
        if (b >= nblocks) return;
        msv_block(&blocks[b], res, tjbm, g, t, myprof, bestRow, capBv, bias, base, tec, out);
    }
}

#if T == 1
// msv_seg_block is msv_kernel's program for a long target on a whole
// warp (a segmented block of msv_seg_kernel): the target is cut into 32 segments (host: gpudb.Segments), lane
// s walking segment s, so the warp walks about 1/32 of the target's
// rows a round instead of all of them. A segment's true entering state
// (the cells and xB after the row before it) is not known until the
// segments before it are done, so the lanes iterate:
// - Round 1: every lane starts from the target's initial state (cells
//   0, xB = max(base - tjbm, 0)) MSV_SEG_WARM rows before its segment
//   (lane 0 at the target's start, with those rows its own), and walks
//   to its segment's end.
// - Later rounds: lane s >= 1 starts its segment from lane s-1's exit
//   cells and the largest exit xB of the lanes before it; lane 0 from
//   its own state after its first MSV_SEG_WARM rows. A round runs only
//   if some lane's entering state differs from the one its segment last
//   ran from (a lane whose state did not change repeats its rows and
//   gets the same result).
// Exact: when no entering state changes, lane 0 ran from the true
// initial state, and by induction on s lane s ran from its predecessor's
// true exit cells and the max of true exit xB of the lanes before it,
// which is the true xB there (xB never falls along a target): every
// segment's rows are the sequential program's. Within 32 rounds: after
// round r, lanes 0..r-1 are exact. And fast: the row map is
// nondecreasing in its entering state (msv_kernel's argument, up to the
// first overflow row), so every state a round computes is at most the
// true one, and rounds only raise them; a warm-up of about M rows makes
// the cells right at once unless xB rose before the segment, which the
// prefix max of xB carries across all lanes in one round.
// The score is the max over all rows of all rounds of e: each row's
// e is at most the true e of that row (lower bounds), and the last round
// ran every row exactly, so the max is the true max. Overflow: a lower
// bound with e + bias >= 255 means the true program overflows at or
// before that row (up to the first true overflow every computed state
// is a lower bound and no cell has passed 32767), so any lane seeing it
// ends the target as 0xffff at once; after the first true overflow the
// states may be anything, but the result is 0xffff whatever they are.
#ifndef MSV_SEG_WARM
#define MSV_SEG_WARM 0
#endif
__device__ __forceinline__ void msv_seg_block(const Block* blk, const unsigned char* res, const int* tjbm, int lane,
                                              const u32* sprof, const int* bestRow, u32 capBv, int bias, int base,
                                              int tec, unsigned short* out)
{
    const int seq = blk->seq[0];
    const int tjbm_s = tjbm[seq];
    const u32* words = (const u32*)(res + blk->off);
    const int K = tec + tjbm_s;
    const u32 negKv = pair16(-K);
    const int W = MSV_SEG_WARM, rows = blk->maxLen;

    MsvState st;
    st.xBv = pair16(max(base - tjbm_s, 0));
    st.xBc = __viaddmin_s16x2(st.xBv, 0u, capBv);
    st.eKm = negKv;
    u32 w[NW];
#pragma unroll
    for (int j = 0; j < NW; j++) w[j] = 0;
    msv_walk(words, 32, lane, true, 0, W, sprof, bestRow, 0, K, negKv, capBv, w, st);
    // The state the lane's segment last ran from.
    u32 in[NW], inX = st.xBv;
#pragma unroll
    for (int j = 0; j < NW; j++) in[j] = w[j];
    msv_walk(words, 32, lane, true, W, rows, sprof, bestRow, 0, K, negKv, capBv, w, st);
    for (;;) {
        // The largest exit xB of the lanes before this one.
        u32 x = st.xBv;
#pragma unroll
        for (int o = 1; o < 32; o *= 2) {
            const u32 y = __shfl_up_sync(0xffffffffu, x, o);
            if (lane >= o) x = __viaddmax_s16x2(y, 0u, x);
        }
        x = __shfl_up_sync(0xffffffffu, x, 1);
        u32 c[NW];
#pragma unroll
        for (int j = 0; j < NW; j++) c[j] = __shfl_up_sync(0xffffffffu, w[j], 1);
        if (lane == 0) {
            x = inX;
#pragma unroll
            for (int j = 0; j < NW; j++) c[j] = in[j];
        }
        bool changed = x != inX;
#pragma unroll
        for (int j = 0; j < NW; j++) changed = changed || c[j] != in[j];
        const bool over = (short)(st.eKm & 0xffff) + K + bias >= 255;
        if (__any_sync(0xffffffffu, over) || !__any_sync(0xffffffffu, changed)) break;
#pragma unroll
        for (int j = 0; j < NW; j++) in[j] = w[j] = c[j];
        inX = st.xBv = x;
        st.xBc = __viaddmin_s16x2(x, 0u, capBv);
        msv_walk(words, 32, lane, true, W, rows, sprof, bestRow, 0, K, negKv, capBv, w, st);
    }
    int emax = (short)(st.eKm & 0xffff);
#pragma unroll
    for (int o = 16; o > 0; o /= 2) emax = max(emax, __shfl_xor_sync(0xffffffffu, emax, o));
    emax += K;
    if (lane == 0) out[seq] = msv_result(emax, bias, tec);
}

// msv_seg_kernel runs a layout of segmented blocks (nseq < 0; host:
// gpudb.Segments), then plain ones, each as msv_kernel would: one launch
// for a whole pass, the segmented targets' warps claimed first.
extern "C" __global__ void __launch_bounds__(BLOCK)
msv_seg_kernel(const u32* __restrict__ prof, const unsigned char* __restrict__ res,
               const Block* __restrict__ blocks, int nblocks, unsigned int* next,
               int bias, int base, int tec, const int* __restrict__ tjbm,
               unsigned short* __restrict__ out)
{
    u32* sprof = (u32*)SHARED_BASE;
    const int* bestRow = load_msv_profile(prof, sprof);

    const int lane = threadIdx.x & 31;
    const u32 capBv = pair16(255 - bias);

    for (;;) {
        const int b = claim_block(next, lane);
        if (b >= nblocks) return;
        if (blocks[b].nseq < 0)
            msv_seg_block(&blocks[b], res, tjbm, lane, sprof, bestRow, capBv, bias, base, tec, out);
        else
            msv_block(&blocks[b], res, tjbm, lane, 0, sprof, bestRow, capBv, bias, base, tec, out);
    }
}
#endif
