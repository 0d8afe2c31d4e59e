// HMMER 3.3.2's Forward parser (p7_ForwardParser) on the GPU, bit for bit.
//
// Why this layout. Forward's printed score depends on the order of every
// float addition: per row, the E accumulator folds the Q match vectors
// left to right, then the Q D vectors, then reduces its four lanes as
// (x0+x1)+(x2+x3); the D->D passes carry one value serially along q. A
// left fold cannot be split between threads without changing its
// rounding, but the four SSE lanes never mix except at a handful of
// points: the one-lane shifts (esl_sse_rightshift_ps) at the start of a row
// and of each D->D pass, the "did any D change" test of the later passes,
// and the final horizontal sum. So each target runs on four threads, one
// per lane, and each thread performs exactly the sequence of float
// operations its lane performs in HMMER's SSE code (and in fwdback.Forward):
// same operands, same order, one IEEE rounding per operation. The lane
// crossings are warp shuffles within the target's group of four. A warp
// aligns 8 targets of similar length (gpudb's T=4 layout) in lock-step.
//
// Arithmetic. hmmsearch computes with SSE flush-to-zero on (DAZ off): a
// tiny product or quotient becomes a zero of its sign, x86 deciding
// tininess after rounding to 24 bits with an unbounded exponent. NVRTC's
// -ftz=true flushes by the same rule on sm_90, measured on an H100
// (2026-11-22): 0x3F7FFFFF * FLT_MIN (exactly 2^-126 - 2^-150) gives 0,
// 0x3F7FFFFE * 0x00800001 (just under 2^-126 before rounding) gives
// FLT_MIN, 0x00FFFFFF / 2 gives 0, as on x86; so plain __fmul_rn and
// __fdiv_rn are fwdback's Go fmul/fdiv. -ftz=true also flushes
// subnormal *inputs*, which HMMER would use as they are, but no input is
// ever subnormal: every value the DP holds is a flushed result or a
// profile value, and the host (fwdPlan.exactOnGPU) refuses profiles with
// a subnormal in them. A sum of two non-negative normal-or-zero floats is
// normal or zero, so additions never produce subnormals either. Products
// and sums go through __fmul_rn/__fadd_rn, which are never contracted into
// FMAs whatever --fmad says (the host passes --fmad=false as well), and
// quotients through __fdiv_rn (IEEE division, also under -prec-div=true).
// HMMER's 1.0/xE is a double division converted to float with x86's rule
// (flush64); the GPU's double division is IEEE.
//
// The total scale. HMMER adds log(xE) in double to a float for every
// rescaled row; glibc's log is not what the GPU's log computes, so the
// kernel only records (target, row, xE) for each rescaled row and the host
// does the logarithms and the additions exactly as fwdback.Forward.
//
// Rescaling is deferred: instead of multiplying a rescaled row by 1/xE in
// place, the row stays as computed and the next row multiplies each value
// by the same float 1/xE as it reads it (by 1.0 when the row was not
// rescaled, which changes no value). Each value is the same product of the
// same two floats as in HMMER, only computed later, so the bits agree and a
// sweep over the row is saved.
//
// With xrows, the kernel also stores every row's special states (E, N, J,
// B, C, scale: fwdback.Matrix's X) from float xoff[target] on, which the
// Backward kernel (bwd.cu) and posterior decoding need.
//
// Compile-time parameters: BLOCK (threads per block, a multiple of 32),
// PROF_SHARED (copy the profile to shared memory), STATE_SHARED (keep the
// row state in shared memory rather than in gstate), FWD_PIPE (0: the
// plain row walk; n > 0: the pipelined walk below, n steps a chunk).

typedef unsigned int u32;

#define FULL 0xffffffffu
#define TPW 8  // targets per warp: gpudb's layout for 4 threads per target

// gpudb.Block: up to 32 targets (8 used), lengths, padded length, count,
// residue offset.
struct Block {
    int seq[32];
    int len[32];
    int maxLen;
    int nseq;
    long long off;
};

// One rescaled row of one target: row i (1-based) was divided by xE.
struct ScaleRecord {
    int seq;
    int row;
    float xE;
};

#ifndef SHARED_BASE
extern __shared__ __align__(16) unsigned char fwd_smem[];
#define SHARED_BASE fwd_smem
#endif

// FLUSH_BELOW is the magnitude under which x86's FTZ gives zero.
#define FLUSH_BELOW (0x1p-126 - 0x1p-151)

// below: |x| < FLUSH_BELOW (no libm: the kernel also compiles for tests
// without CUDA's headers).
__device__ __forceinline__ bool below(double x) { return x < FLUSH_BELOW && x > -FLUSH_BELOW; }

__device__ __forceinline__ float fmul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float fdiv(float a, float b) { return __fdiv_rn(a, b); }

// flush64 converts a double to float as CVTSD2SS does under FTZ (the
// product with zero keeps the sign).
__device__ __forceinline__ float flush64(double x) { return below(x) ? (float)x * 0.0f : (float)x; }

__device__ __forceinline__ float fadd(float a, float b) { return __fadd_rn(a, b); }

// from_left gives lane z the value of lane z-1 of the same target and lane
// 0 a zero: esl_sse_rightshift_ps(v, zero).
__device__ __forceinline__ float from_left(float v, int z)
{
    float w = __shfl_up_sync(FULL, v, 1, 4);
    return z == 0 ? 0.0f : w;
}

// put_xrow stores one row of special states in HMMER's p7X order.
__device__ __forceinline__ void put_xrow(float* r, float e, float n, float j, float b, float c, float scale)
{
    r[0] = e;
    r[1] = n;
    r[2] = j;
    r[3] = b;
    r[4] = c;
    r[5] = scale;
}

// Profile layout (fwdPlan): trans[q][lane z][8] = BM MM IM DM MD MI II DD
// (the first seven are HMMER's transition vectors of q, the eighth its D->D
// vector), odds[x][q][z] with a row stride of QS vectors (QS odd, so that
// targets with different residues read different shared-memory banks);
// row KP is all zero and stands for padding.
//
// Row state of a warp (ST floats): MI[q][32] float2 (M, I), then D[q][32],
// thread l = 4*target + lane owning column l, so each access of a warp is
// 32 consecutive words. Only its own thread ever touches a column.

#ifndef FWD_PIPE
#define FWD_PIPE 0
#endif

#if FWD_PIPE > 0
// The chunked row walk. With one warp per SM (one query's ~1,000 Viterbi
// survivors) nothing hides a step's load latency: the plain walk issues
// step q+1's loads only after step q's stores, above which the compiler
// cannot move them (it cannot tell MI and D apart), so each step waits
// for L1 (profile) and shared memory (state) in turn; ncu on an H100
// (M = 400, one query) put half of its 6.7 cycles per instruction on
// L1TEX waits. Here a row runs in chunks of FWD_PIPE steps (FWD_DPIPE in
// the D->D passes), whose loads are all issued before the chunk's first
// operation. That is legal because within a row each state column is
// read once, before its own store, so a chunk reads nothing that an
// earlier step of the same chunk writes; the profile is never written.
// The float operations and their order are the plain walk's, step for
// step; a row's last Q mod FWD_PIPE steps run one at a time.
#define FWD_STATE __restrict__
#define FWD_DPIPE (2 * FWD_PIPE)

// StepLoads is what one step of the row's main loop reads.
struct StepLoads {
    float4 ta, tb;  // BM MM IM DM, MD MI II DD
    float r;        // match odds of the row's residue
    float2 mi;      // previous row's M, I
    float d;        // previous row's D
};

__device__ __forceinline__ StepLoads load_step(const float* __restrict__ tz, const float* __restrict__ rq,
                                               const float2* __restrict__ MI, const float* __restrict__ D, int q)
{
    StepLoads s;
    s.ta = *(const float4*)(tz + q * 32);
    s.tb = *(const float4*)(tz + q * 32 + 4);
    s.r = rq[q * 4];
    s.mi = MI[q * 32];
    s.d = D[q * 32];
    return s;
}

// RowCarry is what one step of the main loop hands the next.
struct RowCarry {
    float mpv, ipv, dpv;  // previous row's M, I, D of the step before, rescaled
    float xEv, dcv;       // E accumulator, D carry
};

// main_step is one step q of the row's main loop: the plain walk's body.
__device__ __forceinline__ void main_step(const StepLoads& s, RowCarry& c, float xB, float inv, float2* __restrict__ MI,
                                          float* __restrict__ D, int q)
{
    float sv = fmul(xB, s.ta.x);
    sv = fadd(sv, fmul(c.mpv, s.ta.y));
    sv = fadd(sv, fmul(c.ipv, s.ta.z));
    sv = fadd(sv, fmul(c.dpv, s.ta.w));
    sv = fmul(sv, s.r);
    c.xEv = fadd(c.xEv, sv);

    c.mpv = fmul(s.mi.x, inv);
    c.ipv = fmul(s.mi.y, inv);
    c.dpv = fmul(s.d, inv);
    MI[q * 32] = make_float2(sv, fadd(fmul(c.mpv, s.tb.y), fmul(c.ipv, s.tb.z)));
    D[q * 32] = c.dcv;
    c.dcv = fmul(sv, s.tb.x);
}

// later_step is one step q of a D->D pass after the first (d: D[q],
// dd: its D->D transition): the plain walk's body.
__device__ __forceinline__ void later_step(float d, float dd, float& dcv, float& xc, bool& changed, bool run,
                                           float* __restrict__ D, int q)
{
    const float s = fadd(dcv, d);
    changed = changed || s > d;
    if (run && s != d) D[q * 32] = s;
    xc = fadd(s, xc);
    dcv = fmul(dcv, dd);
}

// load_d_chunk reads the D values of steps q..q+FWD_DPIPE-1 of a D->D
// pass and their D->D transitions, all before the chunk's first
// operation (the first and the later passes alike).
__device__ __forceinline__ void load_d_chunk(const float* __restrict__ tz, const float* __restrict__ D, int q,
                                             float (&d)[FWD_DPIPE], float (&dd)[FWD_DPIPE])
{
#pragma unroll
    for (int u = 0; u < FWD_DPIPE; u++) {
        d[u] = D[(q + u) * 32];
        dd[u] = tz[(q + u) * 32 + 7];
    }
}
#else
#define FWD_STATE
#endif

// fwd_block runs one block of targets (a warp's 8, of one profile) through
// Forward. MI and D are this thread's column of the warp's row state; the
// other arguments are fwd_kernel's.
__device__ __forceinline__ void fwd_block(const float* __restrict__ trans, const float* __restrict__ odds, int Q, int QS,
                                          int KP, int check, const unsigned char* __restrict__ res,
                                          const Block* __restrict__ blk, const float2* __restrict__ loopmove,
                                          float emove, float eloop, float2* FWD_STATE MI, float* FWD_STATE D,
                                          float* __restrict__ outC,
                                          ScaleRecord* __restrict__ rec, unsigned int* nrec, unsigned int reccap,
                                          float* __restrict__ xrows, const long long* __restrict__ xoff)
{
    const int lane = threadIdx.x & 31;
    const int g = lane >> 2;  // target within the warp
    const int z = lane & 3;   // SSE lane
    const float* tz = trans + z * 8;
    const bool active = g < blk->nseq;
    const int len = active ? blk->len[g] : 0;
    const int seq = active ? blk->seq[g] : 0;
    const int maxLen = blk->maxLen;
    const u32* words = (const u32*)(res + blk->off);
    const float2 lm = active ? loopmove[seq] : make_float2(0.0f, 0.0f);
    const float ploop = lm.x, pmove = lm.y;

    for (int q = 0; q < Q; q++) {
        MI[q * 32] = make_float2(0.0f, 0.0f);
        D[q * 32] = 0.0f;
    }
    float xN = 1.0f, xJ = 0.0f, xC = 0.0f, xB = pmove;
    float inv = 1.0f;  // the pending rescaling of the stored row
    u32 four = 0;
    float* xr = 0;  // this target's special rows, when asked for
    if (xrows != 0 && z == 0 && len > 0) {
        xr = xrows + xoff[seq];
        put_xrow(xr, 0.0f, xN, xJ, xB, xC, 1.0f);
    }

    for (int i = 0; i < maxLen; i++) {
        if ((i & 3) == 0) four = active ? words[(i >> 2) * TPW + g] : 0xffffffffu;
        int x = (int)((four >> (8 * (i & 3))) & 0xffu);
        if (x > KP) x = KP;  // padding after the end of a target
        const float* rq = odds + (long long)x * QS * 4 + z;

        // M, D, I of the previous row's last vector, shifted one lane.
        const float2 mil = MI[(Q - 1) * 32];
        float mpv = from_left(fmul(mil.x, inv), z);
        float ipv = from_left(fmul(mil.y, inv), z);
        float dpv = from_left(fmul(D[(Q - 1) * 32], inv), z);
        float xEv = 0.0f, dcv = 0.0f;
#if FWD_PIPE > 0
        {
            RowCarry c = {mpv, ipv, dpv, xEv, dcv};
            int q = 0;
            for (; q + FWD_PIPE <= Q; q += FWD_PIPE) {
                StepLoads in[FWD_PIPE];
#pragma unroll
                for (int u = 0; u < FWD_PIPE; u++) in[u] = load_step(tz, rq, MI, D, q + u);
#pragma unroll
                for (int u = 0; u < FWD_PIPE; u++) main_step(in[u], c, xB, inv, MI, D, q + u);
            }
            for (; q < Q; q++) main_step(load_step(tz, rq, MI, D, q), c, xB, inv, MI, D, q);
            xEv = c.xEv;
            dcv = c.dcv;
        }
#else
        for (int q = 0; q < Q; q++) {
            const float4 ta = *(const float4*)(tz + q * 32);      // BM MM IM DM
            const float4 tb = *(const float4*)(tz + q * 32 + 4);  // MD MI II DD
            float sv = fmul(xB, ta.x);
            sv = fadd(sv, fmul(mpv, ta.y));
            sv = fadd(sv, fmul(ipv, ta.z));
            sv = fadd(sv, fmul(dpv, ta.w));
            sv = fmul(sv, rq[q * 4]);
            xEv = fadd(xEv, sv);

            const float2 mi = MI[q * 32];
            mpv = fmul(mi.x, inv);
            ipv = fmul(mi.y, inv);
            dpv = fmul(D[q * 32], inv);
            MI[q * 32] = make_float2(sv, fadd(fmul(mpv, tb.y), fmul(ipv, tb.z)));
            D[q * 32] = dcv;
            dcv = fmul(sv, tb.x);
        }
#endif

        // D->D, first pass: the carry runs through every D.
        dcv = from_left(dcv, z);
        D[0] = 0.0f;
#if FWD_PIPE > 0
        {
            int q = 0;
            for (; q + FWD_DPIPE <= Q; q += FWD_DPIPE) {
                float d[FWD_DPIPE], dd[FWD_DPIPE];
                load_d_chunk(tz, D, q, d, dd);
#pragma unroll
                for (int u = 0; u < FWD_DPIPE; u++) {
                    const float e = fadd(dcv, d[u]);
                    D[(q + u) * 32] = e;
                    dcv = fmul(e, dd[u]);
                }
            }
            for (; q < Q; q++) {
                const float e = fadd(dcv, D[q * 32]);
                D[q * 32] = e;
                dcv = fmul(e, tz[q * 32 + 7]);
            }
        }
#else
        for (int q = 0; q < Q; q++) {
            const float d = fadd(dcv, D[q * 32]);
            D[q * 32] = d;
            dcv = fmul(d, tz[q * 32 + 7]);
        }
#endif

        // Up to three more passes that only extend the carry; for
        // M >= 100 (check) a target stops after a pass that changed none
        // of its D values. Each pass also folds its D values into a copy
        // of the E accumulator in HMMER's order, so the copy from the
        // last pass a target runs is the E sum of the row and no extra
        // sweep is needed. The loop is warp-uniform; a target that has
        // stopped runs along without storing anything.
        bool run = true;
        float xEf = xEv;
        for (int j = 1; j < 4; j++) {
            if (!__any_sync(FULL, run)) break;
            dcv = from_left(dcv, z);
            bool changed = false;
            float xc = xEv;
#if FWD_PIPE > 0
            int q = 0;
            for (; q + FWD_DPIPE <= Q; q += FWD_DPIPE) {
                float d[FWD_DPIPE], dd[FWD_DPIPE];
                load_d_chunk(tz, D, q, d, dd);
#pragma unroll
                for (int u = 0; u < FWD_DPIPE; u++) later_step(d[u], dd[u], dcv, xc, changed, run, D, q + u);
            }
            for (; q < Q; q++) later_step(D[q * 32], tz[q * 32 + 7], dcv, xc, changed, run, D, q);
#else
            for (int q = 0; q < Q; q++) {
                const float d = D[q * 32];
                const float s = fadd(dcv, d);
                changed = changed || s > d;
                // s == d: nothing to store (D values are never -0, so
                // equal means the same bits); saves memory traffic
                // once the carry has died out.
                if (run && s != d) D[q * 32] = s;
                xc = fadd(s, xc);
                dcv = fmul(dcv, tz[q * 32 + 7]);
            }
#endif
            if (run) xEf = xc;
            if (check) {
                int c = changed ? 1 : 0;
                c |= __shfl_xor_sync(FULL, c, 1);
                c |= __shfl_xor_sync(FULL, c, 2);
                run = run && c != 0;
            }
        }
        // (x0+x1)+(x2+x3); lanes 1-3 compute the same sums with the
        // operands swapped, which IEEE addition gives the same bits.
        const float h = fadd(xEf, __shfl_xor_sync(FULL, xEf, 1));
        const float xE = fadd(h, __shfl_xor_sync(FULL, h, 2));

        xN = fmul(xN, ploop);
        xC = fadd(fmul(xC, ploop), fmul(xE, emove));
        xJ = fadd(fmul(xJ, ploop), fmul(xE, eloop));
        xB = fadd(fmul(xJ, pmove), fmul(xN, pmove));
        inv = 1.0f;
        float xEr = xE, scale = 1.0f;  // the row's E and scale as HMMER keeps them
        if (xE > 1.0e4f) {
            xN = fdiv(xN, xE);
            xC = fdiv(xC, xE);
            xJ = fdiv(xJ, xE);
            xB = fdiv(xB, xE);
            inv = flush64(1.0 / (double)xE);
            xEr = 1.0f;
            scale = xE;
            if (z == 0 && i < len) {
                const unsigned int k = atomicAdd(nrec, 1u);
                if (k < reccap) {
                    rec[k].seq = seq;
                    rec[k].row = i + 1;
                    rec[k].xE = xE;
                }
            }
        }
        if (xr != 0 && i < len) put_xrow(xr + 6 * (i + 1), xEr, xN, xJ, xB, xC, scale);
        if (z == 0 && i == len - 1) outC[seq] = xC;
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK)
fwd_kernel(const float* __restrict__ gtrans, const float* __restrict__ godds,
           int Q, int QS, int KP, int check,
           const unsigned char* __restrict__ res, const Block* __restrict__ blocks, int nblocks,
           unsigned int* next, const float2* __restrict__ loopmove, float emove, float eloop,
           float* gstate, float* __restrict__ outC,
           ScaleRecord* __restrict__ rec, unsigned int* nrec, unsigned int reccap,
           float* __restrict__ xrows, const long long* __restrict__ xoff)
{
    const int ntrans = Q * 32;
    const int nodds = (KP + 1) * QS * 4;
    float* sp = (float*)SHARED_BASE;
#if PROF_SHARED
    for (int i = threadIdx.x; i < ntrans; i += BLOCK) sp[i] = gtrans[i];
    for (int i = threadIdx.x; i < nodds; i += BLOCK) sp[ntrans + i] = godds[i];
    const float* trans = sp;
    const float* odds = sp + ntrans;
    sp += ntrans + nodds;
    __syncthreads();
#else
    const float* trans = gtrans;
    const float* odds = godds;
#endif
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const long long stFloats = 3LL * Q * 32;
#if STATE_SHARED
    float* st = sp + warp * stFloats;
#else
    float* st = gstate + ((long long)blockIdx.x * (BLOCK / 32) + warp) * stFloats;
#endif
    float2* MI = (float2*)st + lane;
    float* D = st + 2LL * Q * 32 + lane;

    for (;;) {
        int b = 0;
        if (lane == 0) b = (int)atomicAdd(next, 1u);
        b = __shfl_sync(FULL, b, 0);
        if (b >= nblocks) return;
        fwd_block(trans, odds, Q, QS, KP, check, res, blocks + b, loopmove, emove, eloop, MI, D, outC, rec, nrec,
                  reccap, xrows, xoff);
    }
}

// Many queries in one launch (hmmsearch keeps several in flight, each with
// ~1,000 Viterbi survivors: alone, one barely gives each SM a warp). A job
// is one query's profile and its targets; every block of 8 targets belongs
// to one job (bjob[b]), so each warp still runs one profile in lock-step
// and fwd_block's per-lane operations are exactly fwd_kernel's. Targets
// are numbered across the jobs (seq) for loopmove, outC and the records.
// Profiles stay in global memory (read through L1): a block's warps run
// different jobs, and the batch's profiles together rarely fit shared
// memory. The row state is sized for the largest Q of the batch.
struct FwdJob {
    long long trans, odds;  // float offsets into gtrans, godds
    int Q, QS, KP, check;
    float emove, eloop;
};

#if !PROF_SHARED
extern "C" __global__ void __launch_bounds__(BLOCK)
fwd_multi_kernel(const FwdJob* __restrict__ jobs, const int* __restrict__ bjob, const float* __restrict__ gtrans,
                 const float* __restrict__ godds, int Qmax, const unsigned char* __restrict__ res,
                 const Block* __restrict__ blocks, int nblocks, unsigned int* next,
                 const float2* __restrict__ loopmove, float* gstate, float* __restrict__ outC,
                 ScaleRecord* __restrict__ rec, unsigned int* nrec, unsigned int reccap)
{
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const long long stFloats = 3LL * Qmax * 32;
#if STATE_SHARED
    float* st = (float*)SHARED_BASE + warp * stFloats;
#else
    float* st = gstate + ((long long)blockIdx.x * (BLOCK / 32) + warp) * stFloats;
#endif
    for (;;) {
        int b = 0;
        if (lane == 0) b = (int)atomicAdd(next, 1u);
        b = __shfl_sync(FULL, b, 0);
        if (b >= nblocks) return;
        const FwdJob j = jobs[bjob[b]];
        float2* MI = (float2*)st + lane;
        float* D = st + 2LL * j.Q * 32 + lane;
        fwd_block(gtrans + j.trans, godds + j.odds, j.Q, j.QS, j.KP, j.check, res, blocks + b, loopmove, j.emove,
                  j.eloop, MI, D, outC, rec, nrec, reccap, 0, 0);
    }
}
#endif
