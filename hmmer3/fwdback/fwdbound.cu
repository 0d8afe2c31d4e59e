// The Forward filter's score to within a proven margin (docs/fwdbound.md),
// one warp per target, in an order made for the GPU rather than HMMER's.
//
// Why. fwd.cu reproduces HMMER's striped SSE order bit for bit, which ties
// a target to four threads walking Q vectors serially: latency-bound. The
// filter only needs pass/fail, and BoundMargin bounds how far any order of
// the same float operations can land from HMMER's; the few targets near
// the threshold go to the exact CPU Forward. So here a target gets a warp,
// lane l owns C >= ceil(M/32) consecutive nodes l*C+1 .. l*C+C (boundChunk:
// C = 1..6 or 8, else a multiple of 4; nodes past M are zero), and a row
// costs O(C + log 32) dependent steps instead of O(M/4).
//
// A row i, nodes k in natural order (x the residue, all values >= 0):
//   M(k) = odds(x,k) * (B*BM(k) + M'(k-1)*MM(k) + I'(k-1)*IM(k) + D'(k-1)*DM(k))
//   I(k) = M'(k)*MI(k) + I'(k)*II(k)
//   D(k+1) = D(k)*DD(k) + M(k)*MD(k),  D(1) = 0
//   E = sum over k of M(k) + D(k)   (local mode: every M and D enters E)
// (' is the previous row). The D chain is an affine recurrence: each lane
// folds its chunk into one map D_out = A*D_in + B, a warp scan of those
// maps gives every lane its D_in (five shuffle steps). The chunk's D
// values are A_c*D_in + B_c (A_c, B_c: the map before node c), so their
// share of E is Sa*D_in + Sb with Sa, Sb the sums of the A_c and B_c: E
// is known right after the scan, and writing the D values (from the A_c,
// B_c kept in registers, or by the chain from D_in when the row state is
// in shared memory) overlaps its warp sum. N, J, C and B follow in float
// as in fwdback.Forward.
//
// Rescaling is by exact powers of two: when E > 2^13 the specials and the
// row are multiplied by 2^-e (e = E's binary exponent). No rounding is
// added (only flushing of values below 2^-126, which docs/fwdbound.md
// accounts for), and the log scale is the integer sum of the e's,
// returned for the host to multiply by ln 2: no libm here.
//
// Layout (boundplan.go). Per job the transitions of node k = l*C+c+1 are
// two float4 at ((c*32 + l)*2): (BM MM IM DM) and (MD MI II DD), the match
// odds of residue x at (x*C + c)*32 + l: each load of a warp is
// contiguous. A lane's row state (M, I and D of its nodes) is in
// registers for C <= 8, else in shared memory, [c][32] each, so each
// access of the warp is one line.
//
// FB_MUTATE (tests only): 1 drops the D carry between lanes, 2 leaves the
// D values out of E.

#ifndef FB_MUTATE
#define FB_MUTATE 0
#endif

#define FB_FULL 0xffffffffu

// BoundJob is one query (40 bytes; fwdbound.go: boundJobBytes).
struct BoundJob {
    long long trans, odds;  // float offsets into the batch's arrays
    int M, C;
    float emove, eloop;
    int pad[2];
};

// BoundTask is one target of one job (24 bytes; fwdbound.go).
struct BoundTask {
    long long off;      // its residues in res
    int len, job;
    float loop, move;   // N, C and J loop and move for its length
};

#ifndef FB_SHARED_BASE
extern __shared__ __align__(16) unsigned char fb_smem[];
#define FB_SHARED_BASE fb_smem
#endif

__device__ __forceinline__ float fb_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float fb_add(float a, float b) { return __fadd_rn(a, b); }

// fb_left is lane l-1's v, and 0 in lane 0.
__device__ __forceinline__ float fb_left(float v, int lane)
{
    const float w = __shfl_up_sync(FB_FULL, v, 1);
    return lane == 0 ? 0.0f : w;
}

// fb_sum is the sum over the warp, the same bits in every lane (each step
// adds the same two values in either order).
__device__ __forceinline__ float fb_sum(float v)
{
    for (int s = 16; s > 0; s >>= 1) v = fb_add(v, __shfl_xor_sync(FB_FULL, v, s));
    return v;
}

// FbSweep is what the first sweep of a row carries from node to node:
// node k-1 of the previous row (M, I, D), the chunk's D map so far
// (D at the current node = A*D_in + B), the sums of A and B over the
// nodes so far (so that the chunk's D values add Sa*D_in + Sb to E
// without waiting for them), and M's share of E.
struct FbSweep {
    float mp, ip, dp;
    float A, B, Sa, Sb, e;
};

// fb_node is one node of the first sweep: its new M (returned) and I
// (inew), from the previous row's M, I, D at this node (mo, io, dO).
__device__ __forceinline__ float fb_node(FbSweep& s, float xB, float4 ta, float4 tb, float r, float mo, float io,
                                         float dO, float& inew)
{
    float sv = fb_mul(xB, ta.x);
    sv = fb_add(sv, fb_mul(s.mp, ta.y));
    sv = fb_add(sv, fb_mul(s.ip, ta.z));
    sv = fb_add(sv, fb_mul(s.dp, ta.w));
    sv = fb_mul(sv, r);
    inew = fb_add(fb_mul(mo, tb.y), fb_mul(io, tb.z));
    s.Sa = fb_add(s.Sa, s.A);
    s.Sb = fb_add(s.Sb, s.B);
    s.B = fb_add(fb_mul(s.B, tb.w), fb_mul(sv, tb.x));
    s.A = fb_mul(s.A, tb.w);
    s.e = fb_add(s.e, sv);
    s.mp = mo;
    s.ip = io;
    s.dp = dO;
    return sv;
}

// fb_sweep_start is the sweep's state at the chunk's first node: node
// k-1 of the previous row from lane l-1 (m, i, d: this lane's last node).
__device__ __forceinline__ FbSweep fb_sweep_start(float m, float i, float d, int lane)
{
    FbSweep s;
    s.mp = fb_left(m, lane);
    s.ip = fb_left(i, lane);
    s.dp = fb_left(d, lane);
    s.A = 1.0f;
    s.B = s.Sa = s.Sb = s.e = 0.0f;
    return s;
}

// fb_row_e scans the lanes' D maps (lane l then holds lanes 0..l composed,
// whose B is D at lane l+1's first node; D(1) = 0), sets din to D at this
// lane's first node and returns the row's E, the same in every lane.
__device__ __forceinline__ float fb_row_e(FbSweep& s, int lane, float& din)
{
    for (int k = 1; k < 32; k <<= 1) {
        const float Ap = __shfl_up_sync(FB_FULL, s.A, k), Bp = __shfl_up_sync(FB_FULL, s.B, k);
        if (lane >= k) {
            s.B = fb_add(fb_mul(s.A, Bp), s.B);
            s.A = fb_mul(s.A, Ap);
        }
    }
    din = fb_left(s.B, lane);
#if FB_MUTATE == 1
    din = 0.0f;
#endif
#if FB_MUTATE == 2
    return fb_sum(s.e);
#else
    return fb_sum(fb_add(s.e, fb_add(fb_mul(s.Sa, din), s.Sb)));
#endif
}

// FbSpecials are the N, J, C, B states and the total scale exponent.
struct FbSpecials {
    float xN, xJ, xC, xB;
    int etot;
};

// fb_specials moves N, J, C, B past a row with E value xE, as Forward
// does, and returns the power of two by which the row is to be scaled
// (1 when E <= 2^13; else 2^-e, e being E's binary exponent).
__device__ __forceinline__ float fb_specials(FbSpecials& x, float xE, float loop, float move, const BoundJob& j)
{
    x.xN = fb_mul(x.xN, loop);
    x.xC = fb_add(fb_mul(x.xC, loop), fb_mul(xE, j.emove));
    x.xJ = fb_add(fb_mul(x.xJ, loop), fb_mul(xE, j.eloop));
    x.xB = fb_add(fb_mul(x.xJ, move), fb_mul(x.xN, move));
    if (!(xE > 8192.0f)) return 1.0f;
    // E's binary exponent, 13..127 (+Inf or NaN give a harmless factor
    // and a final C the host rejects).
    int e = (int)((__float_as_uint(xE) >> 23) & 0xffu) - 127;
    if (e > 126) e = 126;
    const float f = __uint_as_float((unsigned)(127 - e) << 23);
    x.xN = fb_mul(x.xN, f);
    x.xC = fb_mul(x.xC, f);
    x.xJ = fb_mul(x.xJ, f);
    x.xB = fb_mul(x.xB, f);
    x.etot += e;
    return f;
}

__device__ __forceinline__ void fb_out(const FbSpecials& x, int lane, float* outC, int* outExp, int task)
{
    if (lane == 0) {
        outC[task] = x.xC;
        outExp[task] = x.etot;
    }
}

// fb_target_regs runs one target of a job whose chunk is CM nodes, the
// row state in registers; the second sweep writes D from each node's map
// (A, B before the node) and D_in, no chain.
template <int CM>
__device__ __forceinline__ void fb_target_regs(const BoundJob& j, const BoundTask& t, const float* __restrict__ trans,
                                               const float* __restrict__ odds, const unsigned char* __restrict__ res,
                                               float* __restrict__ outC, int* __restrict__ outExp, int task)
{
    const int lane = threadIdx.x & 31;
    const float4* tr = (const float4*)(trans + j.trans) + 2 * lane;
    const float* od = odds + j.odds + lane;
    float Mr[CM], Ir[CM], Dr[CM];
#pragma unroll
    for (int c = 0; c < CM; c++) Mr[c] = Ir[c] = Dr[c] = 0.0f;
    FbSpecials x = {1.0f, 0.0f, 0.0f, t.move, 0};
    const unsigned char* r = res + t.off;
    int next = t.len > 0 ? r[0] : 0;
    for (int i = 0; i < t.len; i++) {
        const float* rq = od + next * CM * 32;
        if (i + 1 < t.len) next = r[i + 1];  // the next row's residue, early
        FbSweep s = fb_sweep_start(Mr[CM - 1], Ir[CM - 1], Dr[CM - 1], lane);
        float Ac[CM], Bc[CM];
#pragma unroll
        for (int c = 0; c < CM; c++) {
            Ac[c] = s.A;
            Bc[c] = s.B;
            float inew;
            Mr[c] = fb_node(s, x.xB, tr[c * 64], tr[c * 64 + 1], rq[c * 32], Mr[c], Ir[c], Dr[c], inew);
            Ir[c] = inew;
        }
        float din;
        const float xE = fb_row_e(s, lane, din);
#pragma unroll
        for (int c = 0; c < CM; c++) Dr[c] = fb_add(fb_mul(Ac[c], din), Bc[c]);
        const float f = fb_specials(x, xE, t.loop, t.move, j);
        if (f != 1.0f) {
#pragma unroll
            for (int c = 0; c < CM; c++) {
                Mr[c] = fb_mul(Mr[c], f);
                Ir[c] = fb_mul(Ir[c], f);
                Dr[c] = fb_mul(Dr[c], f);
            }
        }
    }
    fb_out(x, lane, outC, outExp, task);
}

// FB_U is the shared-memory path's unrolling: the loads of FB_U nodes
// are issued before their first operation, so that several L1/L2
// requests are in flight (the profile of a long model does not stay in
// L1 beside the row state).
#ifndef FB_U
#define FB_U 4
#endif

// fb_target_shared runs one target with the row state in shared memory
// (st: 3*Cmax*32 floats, [c][32] each for M, I, D), any chunk size.
__device__ __forceinline__ void fb_target_shared(const BoundJob& j, const BoundTask& t, const float* __restrict__ trans,
                                                 const float* __restrict__ odds,
                                                 const unsigned char* __restrict__ res, float* st, int Cmax,
                                                 float* __restrict__ outC, int* __restrict__ outExp, int task)
{
    const int lane = threadIdx.x & 31;
    const int C = j.C;
    const float4* tr = (const float4*)(trans + j.trans) + 2 * lane;
    const float* od = odds + j.odds + lane;
    float* Ms = st + lane;
    float* Is = st + Cmax * 32 + lane;
    float* Ds = st + 2 * Cmax * 32 + lane;
    for (int c = 0; c < C; c++) Ms[c * 32] = Is[c * 32] = Ds[c * 32] = 0.0f;
    FbSpecials x = {1.0f, 0.0f, 0.0f, t.move, 0};
    const unsigned char* r = res + t.off;
    int next = t.len > 0 ? r[0] : 0;
    for (int i = 0; i < t.len; i++) {
        const float* rq = od + (long long)next * C * 32;
        if (i + 1 < t.len) next = r[i + 1];
        FbSweep s = fb_sweep_start(Ms[(C - 1) * 32], Is[(C - 1) * 32], Ds[(C - 1) * 32], lane);
        int c = 0;
        for (; c + FB_U <= C; c += FB_U) {
            float4 ta[FB_U], tb[FB_U];
            float rv[FB_U], mo[FB_U], io[FB_U], dO[FB_U];
#pragma unroll
            for (int u = 0; u < FB_U; u++) {
                ta[u] = tr[(c + u) * 64];
                tb[u] = tr[(c + u) * 64 + 1];
                rv[u] = rq[(c + u) * 32];
                mo[u] = Ms[(c + u) * 32];
                io[u] = Is[(c + u) * 32];
                dO[u] = Ds[(c + u) * 32];
            }
#pragma unroll
            for (int u = 0; u < FB_U; u++) {
                float inew;
                Ms[(c + u) * 32] = fb_node(s, x.xB, ta[u], tb[u], rv[u], mo[u], io[u], dO[u], inew);
                Is[(c + u) * 32] = inew;
            }
        }
        for (; c < C; c++) {
            float inew;
            const float mo = Ms[c * 32], io = Is[c * 32], dO = Ds[c * 32];
            Ms[c * 32] = fb_node(s, x.xB, tr[c * 64], tr[c * 64 + 1], rq[c * 32], mo, io, dO, inew);
            Is[c * 32] = inew;
        }
        float d;
        const float xE = fb_row_e(s, lane, d);
        // The D values: the chain from D_in, node by node.
        c = 0;
        for (; c + FB_U <= C; c += FB_U) {
            float4 tb[FB_U];
            float m[FB_U];
#pragma unroll
            for (int u = 0; u < FB_U; u++) {
                tb[u] = tr[(c + u) * 64 + 1];
                m[u] = Ms[(c + u) * 32];
            }
#pragma unroll
            for (int u = 0; u < FB_U; u++) {
                Ds[(c + u) * 32] = d;
                d = fb_add(fb_mul(d, tb[u].w), fb_mul(m[u], tb[u].x));
            }
        }
        for (; c < C; c++) {
            const float4 tb = tr[c * 64 + 1];
            Ds[c * 32] = d;
            d = fb_add(fb_mul(d, tb.w), fb_mul(Ms[c * 32], tb.x));
        }
        const float f = fb_specials(x, xE, t.loop, t.move, j);
        if (f != 1.0f) {
            for (int k = 0; k < C; k++) {
                Ms[k * 32] = fb_mul(Ms[k * 32], f);
                Is[k * 32] = fb_mul(Is[k * 32], f);
                Ds[k * 32] = fb_mul(Ds[k * 32], f);
            }
        }
    }
    fb_out(x, lane, outC, outExp, task);
}

// FB_REGS: 1 runs jobs with chunks of at most 8 nodes with the row state
// in registers (boundChunk gives them C = 1..6 or 8); 0 sends every job
// through the shared-memory path (benchmarks).
#ifndef FB_REGS
#define FB_REGS 1
#endif

// FB_MINB > 0 caps the registers so that FB_MINB blocks of 256 threads fit
// an SM (benchmarks); blocks have at most 256 threads (boundMaxWarps).
#ifndef FB_MINB
#define FB_MINB 0
#endif
#if FB_MINB > 0
#define FB_BOUNDS __launch_bounds__(256, FB_MINB)
#else
#define FB_BOUNDS __launch_bounds__(256)
#endif

// fwdbound_kernel: each warp takes targets from *next until none is left.
// Shared memory: 3*Cmax*32 floats a warp (jobs on the shared path).
extern "C" __global__ void FB_BOUNDS fwdbound_kernel(const BoundJob* __restrict__ jobs, const BoundTask* __restrict__ tasks,
                                           int ntasks, const float* __restrict__ trans,
                                           const float* __restrict__ odds, const unsigned char* __restrict__ res,
                                           int Cmax, unsigned int* next, float* __restrict__ outC,
                                           int* __restrict__ outExp)
{
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    float* st = (float*)FB_SHARED_BASE + (long long)warp * 3 * Cmax * 32;
    for (;;) {
        int k = 0;
        if (lane == 0) k = (int)atomicAdd(next, 1u);
        k = __shfl_sync(FB_FULL, k, 0);
        if (k >= ntasks) return;
        const BoundTask t = tasks[k];
        const BoundJob j = jobs[t.job];
        switch (FB_REGS ? j.C : 0) {
        case 1: fb_target_regs<1>(j, t, trans, odds, res, outC, outExp, k); break;
        case 2: fb_target_regs<2>(j, t, trans, odds, res, outC, outExp, k); break;
        case 3: fb_target_regs<3>(j, t, trans, odds, res, outC, outExp, k); break;
        case 4: fb_target_regs<4>(j, t, trans, odds, res, outC, outExp, k); break;
        case 5: fb_target_regs<5>(j, t, trans, odds, res, outC, outExp, k); break;
        case 6: fb_target_regs<6>(j, t, trans, odds, res, outC, outExp, k); break;
        case 8: fb_target_regs<8>(j, t, trans, odds, res, outC, outExp, k); break;
        default: fb_target_shared(j, t, trans, odds, res, st, Cmax, outC, outExp, k);
        }
    }
}
