// Envelope rescoring's posterior decoding, optimal accuracy and null2 row
// sums on the GPU (fwdback.DecodeAlign), bit for bit, for many envelopes
// of one model whose full Forward and Backward matrices env_fwd_kernel
// and env_bwd_kernel (envfwd.cu, envbwd.cu) have just stored. The trace
// kernel (envtrace.cu) runs next on what this one leaves. Compiled with
// ENV_KERNELS only, as are the other envelope kernels.
//
// Why a warp an envelope. A query has tens to hundreds of envelopes, too
// few to fill a GPU at a few threads each, and a thread walking a lane of
// every row of a long envelope alone is bound by the latency of its
// loads (docs/BENCHMARKS.md). So each of HMMER's four SSE lanes is cut
// into eight stretches of vectors, one thread each. Decoding and null2's
// sums are elementwise. Optimal accuracy is maxima and one addition a
// cell: the M and I cells need only the previous row; the first D->D
// pass is a chain of maxima and masks along the lane, which each thread
// folds over its stretch into a map of the carry entering it (DMap), so
// the carry entering every stretch is known after one exchange; passes two
// to four carry a value that only masks change. Where the CPU's lanes
// meet (vector Q-1 of lane z-1 into vector 0 of lane z) the values are
// exchanged as in oaRowGo, and every cell gets the value the serial code
// gives, bit for bit.
//
// The special states' posteriors and each row's scale are serial over the
// rows and cheap: thread 0 of the warp computes them first, into the
// envelope's Backward special rows (pp.X, as DecodeAlign leaves them),
// keeping each row's decoding scale in the scale column, where the CPU
// leaves 0 and nothing reads it. Posteriors go into bmat (pp), optimal
// accuracy into fmat and its specials into the Forward special rows (ox,
// ox.X), null2's sums into pp's row 0, where DecodeAlign puts them.
//
// Shuffles always have every lane of the warp, as the CPU shim checks. An
// envelope whose scale overflows (ErrRange: HMMER drops it) or that the
// host marks ENV_SKIP (Forward or Backward failed) only gets its record.
#if ENV_KERNELS

// EnvDesc.flags bits.
#define ENV_OWN_SCALES 1 // Backward used its own scale factors
#define ENV_NULL2 2      // compute null2's row sums (the ensemble did not set null2)
#define ENV_SKIP 4       // Forward or Backward failed: nothing to decode

// One envelope of a launch: where its matrices, special rows and trace
// room lie in the launch's buffers (the host's envDescBytes).
struct EnvDesc {
    long long mat;   // float offset of its matrices: Forward's at fmat+mat, Backward's at bmat+mat
    long long xrow;  // float offset of its special rows in fxrows and bxrows
    long long trace; // TraceStep offset of its trace room (L + M + 8 steps)
    int L;           // residues (>= 1)
    int flags;       // ENV_OWN_SCALES | ENV_NULL2 | ENV_SKIP
};

// What the decoding kernel reports of an envelope (the host's
// envDecodeBytes): the optimal accuracy score, ErrRange, and the N, C and
// J posteriors summed over rows 1..L in null2FromSums' order.
struct EnvDecoded {
    float oasc;
    int err;
    float xN, xC, xJ;
};

// Transitions of a vector in oprofile's order, then the Q D->D vectors.
#define TBM 0
#define TMM 1
#define TIM 2
#define TDM 3
#define TMD 4
#define TMI 5
#define TII 6

#define NEG_INF __uint_as_float(0xff800000u)

// band is one lane of _mm_and_ps(_mm_cmpgt_ps(t, 0), x).
__device__ __forceinline__ float band(float t, float x) { return t > 0.0f ? x : 0.0f; }

// vmax is one lane of _mm_max_ps(a, b); cmax is ESL_MAX. Both a if a > b, else b.
__device__ __forceinline__ float vmax(float a, float b) { return a > b ? a : b; }

__device__ __forceinline__ bool is_inf(float x) { return (__float_as_uint(x) & 0x7fffffffu) == 0x7f800000u; }

__device__ __forceinline__ float prod4(float a, float b, float c, float d) { return fmul(fmul(fmul(a, b), c), d); }

// decode_specials is decodeSpecials for one envelope: pp.X into bx (the
// scale column holding each row's cell scale totr) over Backward's rows;
// returns ErrRange as true, with the N, C and J sums.
__device__ bool decode_specials(const float* fx, float* bx, int L, bool own, float loop, float* sN, float* sC,
                                float* sJ)
{
    float sp = flush64(1.0 / (double)bx[1]);
    for (int c = 0; c < 6; c++) bx[c] = 0.0f;
    float n = 0.0f, cc = 0.0f, j = 0.0f;
    for (int i = 1; i <= L; i++) {
        const float* f0 = fx + 6 * (i - 1);
        float* b = bx + 6 * i;
        const float fscale = fx[6 * i + 5];
        const float totr = fmul(sp, fscale);
        const float bN = b[1], bJ = b[2], bC = b[4], bS = b[5];
        const float pN = prod4(f0[1], bN, loop, sp);
        const float pJ = prod4(f0[2], bJ, loop, sp);
        const float pC = prod4(f0[4], bC, loop, sp);
        b[0] = 0.0f;
        b[1] = pN;
        b[2] = pJ;
        b[3] = 0.0f;
        b[4] = pC;
        b[5] = totr;
        if (i == 1) {
            n = pN, cc = pC, j = pJ;
        } else {
            n = fadd(n, pN), cc = fadd(cc, pC), j = fadd(j, pJ);
        }
        if (own) sp = fmul(sp, fdiv(fscale, bS));
    }
    *sN = n, *sC = cc, *sJ = j;
    return is_inf(sp);
}

// ENV_PARTS is how many threads share a lane's vectors: a warp an
// envelope, each thread a stretch of one lane's vectors.
#define ENV_PARTS 8

// Stretch is thread part's vectors [qa, qb) of its lane (the stretches
// after the last are empty), and the part holding the lane's last vector.
struct Stretch {
    int qa, qb, last;
};

__device__ __forceinline__ Stretch stretch_of(int part, int Q)
{
    const int chunk = (Q + ENV_PARTS - 1) / ENV_PARTS;
    Stretch s;
    s.qa = min(Q, part * chunk);
    s.qb = min(Q, s.qa + chunk);
    s.last = (Q - 1) / chunk;
    return s;
}

// stretch_entry is what enters vector qa of lane z from row pr: vector
// qa-1, or for the lane's first vector vector Q-1 of lane z-1 (HMMER's
// shift), or fill for lane 0's.
__device__ __forceinline__ void stretch_entry(const float* pr, int qa, int Q, int z, float fill, float* mp, float* dp,
                                              float* ip)
{
    *mp = *dp = *ip = fill;
    const int j = qa > 0 ? 12 * (qa - 1) + z : z > 0 ? 12 * (Q - 1) + z - 1 : -1;
    if (j >= 0) *mp = pr[j], *dp = pr[j + 4], *ip = pr[j + 8];
}

// sweep runs work(q, v) for q = from, from+dir, ... up to but not
// including to (dir 1 or -1), where v = load(q), the loads of each run of
// R vectors issued before the run's work; work returns false to end the
// sweep there. Why: these loops store into global memory that, for all
// the compiler knows, their next loads may read, so a loop that loads and
// stores a vector at a time waits out a load's latency at every vector
// (the warp has little else to run). Loading a run first waits once a
// run. The caller sees to it that a run's work never writes what the
// run's later loads read.
#define ENV_AHEAD 8   // a stretch's run: vectors of up to a dozen loads each
#define ENV_CHAIN 16  // a serial chain's run: vectors of two or three loads

template <int R, class Load, class Work>
__device__ __forceinline__ void sweep(int from, int to, int dir, Load load, Work work)
{
    using V = decltype(load(from));
    const int n = (to - from) * dir;
    int k = 0;
    for (; k + R <= n; k += R) {  // whole runs, without a bound check a vector
        V v[R];
#pragma unroll
        for (int u = 0; u < R; u++) v[u] = load(from + dir * (k + u));
#pragma unroll
        for (int u = 0; u < R; u++)
            if (!work(from + dir * (k + u), v[u])) return;
    }
    if (k < n) {
        V v[R];
#pragma unroll
        for (int u = 0; u < R; u++)
            if (k + u < n) v[u] = load(from + dir * (k + u));
#pragma unroll
        for (int u = 0; u < R; u++)
            if (k + u < n && !work(from + dir * (k + u), v[u])) return;
    }
}

// decode_row is decodeRowsGo for lane z of vectors [qa, qb) of one row:
// (F*B)*t into p.
__device__ __forceinline__ void decode_row(const float* f, float* p, int qa, int qb, int z, float t)
{
    // A vector writes only its own cells.
    sweep<ENV_AHEAD>(
        qa, qb, 1,
        [&](int q) {
            const int j = 12 * q + z;
            return float4{f[j], p[j], f[j + 8], p[j + 8]};
        },
        [&](int q, const float4& v) {
            const int j = 12 * q + z;
            p[j] = fmul(fmul(v.x, v.y), t);
            p[j + 4] = 0.0f;
            p[j + 8] = fmul(fmul(v.z, v.w), t);
            return true;
        });
}

// DMap is the first D->D pass over a stretch of vectors, as a function of
// the carry entering it: c -> keep ? vmax(c, a) : b. One vector's step is
// c -> mask ? vmax(c, D) : 0, and such maps compose into one of the same
// form; vmax is exact and the values are -inf or non-negative (never -0),
// so any grouping gives the carry the serial pass gives, bit for bit.
struct DMap {
    bool keep;
    float a, b;
};

__device__ __forceinline__ float dmap_apply(const DMap& f, float c) { return f.keep ? vmax(c, f.a) : f.b; }

// dmap_then is g after f.
__device__ __forceinline__ DMap dmap_then(const DMap& f, const DMap& g)
{
    if (!g.keep) return g;
    DMap r;
    r.keep = f.keep;
    r.a = vmax(f.a, g.a);
    r.b = vmax(f.b, g.a);
    return r;
}

extern "C" __global__ void __launch_bounds__(128)
env_decode_kernel(const EnvDesc* __restrict__ desc, int n, int Q, int M, const float* __restrict__ tf,
                  const float2* __restrict__ loopmove, float eloop, float emove, float* __restrict__ fmat,
                  float* __restrict__ bmat, float* __restrict__ fxrows, float* __restrict__ bxrows,
                  EnvDecoded* __restrict__ out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int e = t >> 5, lane = t & 31, z = lane & 3, part = lane >> 2;
    if (e >= n) return;  // the whole warp: one envelope a warp
    (void)M;
    const EnvDesc d = desc[e];
    const float2 lm = loopmove[e];
    float* fx = fxrows + d.xrow;
    float* bx = bxrows + d.xrow;
    float* fm = fmat + d.mat;
    float* bm = bmat + d.mat;
    const long long rowFloats = 12LL * Q;
    const Stretch sp = stretch_of(part, Q);
    const int qa = sp.qa, qb = sp.qb, lastPart = sp.last;

    int err = 0;
    float sN = 0.0f, sC = 0.0f, sJ = 0.0f;
    if (lane == 0 && !(d.flags & ENV_SKIP))
        err = decode_specials(fx, bx, d.L, (d.flags & ENV_OWN_SCALES) != 0, lm.x, &sN, &sC, &sJ) ? 1 : 0;
    err = __shfl_sync(FULL, err, 0);
    __syncwarp();  // pp.X, with the row scales, is in memory for the warp
    const int L = (!err && !(d.flags & ENV_SKIP)) ? d.L : 0;

    // The D->D masks of lane z: all of them ANDed (ddAll), and those of
    // the vectors before this thread's.
    const float* dd = tf + 28 * Q;
    bool ddAll = true, before = true;
    for (int q = 0; q < Q; q++) {
        const bool m = dd[4 * q + z] > 0.0f;
        ddAll = ddAll && m;
        if (q < qa) before = before && m;
    }

    if (L > 0) {
        for (int q = qa; q < qb; q++)
            for (int s = 0; s < 3; s++) fm[12 * q + 4 * s + z] = NEG_INF;
        decode_row(fm + rowFloats, bm + rowFloats, qa, qb, z, bx[6 + 5]);
        if (d.flags & ENV_NULL2)
            for (int q = qa; q < qb; q++)
                for (int s = 0; s < 3; s++) bm[12 * q + 4 * s + z] = bm[rowFloats + 12 * q + 4 * s + z];
        if (lane == 0) {
            fx[0] = NEG_INF, fx[1] = 0.0f, fx[2] = NEG_INF, fx[3] = 0.0f, fx[4] = NEG_INF, fx[5] = 0.0f;
        }
    }
    __syncwarp();
    const bool jLoop = lm.x != 0.0f, cLoop = jLoop, nLoop = jLoop;
    const bool nMove = lm.y != 0.0f, jMove = nMove;
    const bool eLoop = eloop != 0.0f, eMove = emove != 0.0f;
    const int left = lastPart * 4 + ((z + 3) & 3); // the thread ending lane z-1

    float xB = 0.0f, pxN = 0.0f, pxJ = NEG_INF, pxC = NEG_INF, oasc = 0.0f;
    for (int i = 1; i <= L; i++) {
        const float* pr = fm + rowFloats * (i - 1);
        float* cr = fm + rowFloats * i;
        const float* pp = bm + rowFloats * i;
        // M, I, and D as the M->D value from the vector before, which for
        // this stretch's first vector comes from the thread before.
        float xe = NEG_INF, dc = NEG_INF;
        if (qa < qb) {
            float mp, dp, ip;
            stretch_entry(pr, qa, Q, z, NEG_INF, &mp, &dp, &ip);
            // Writes go to row i of fm only; loads read tf, pp and row i-1.
            struct In {
                float bm, mm, im, dm, md, mi, ii, pm, pi, m, d, i;
            };
            sweep<ENV_AHEAD>(
                qa, qb, 1,
                [&](int q) {
                    const float* tq = tf + 28 * q + z;
                    const int j = 12 * q + z;
                    return In{tq[4 * TBM], tq[4 * TMM], tq[4 * TIM], tq[4 * TDM], tq[4 * TMD], tq[4 * TMI],
                              tq[4 * TII], pp[j],       pp[j + 8],   pr[j],       pr[j + 4],   pr[j + 8]};
                },
                [&](int q, const In& v) {
                    const int j = 12 * q + z;
                    float sv = band(v.bm, xB);
                    sv = vmax(sv, band(v.mm, mp));
                    sv = vmax(sv, band(v.im, ip));
                    sv = vmax(sv, band(v.dm, dp));
                    sv = fadd(sv, v.pm);
                    xe = vmax(xe, sv);
                    mp = v.m, dp = v.d, ip = v.i;
                    cr[j] = sv;
                    if (q > qa) cr[j + 4] = dc;
                    dc = band(v.md, sv);
                    cr[j + 8] = fadd(vmax(band(v.mi, mp), band(v.ii, ip)), v.pi);
                    return true;
                });
        }
        const float dcUp = __shfl_up_sync(FULL, dc, 4);
        const float dcIn = part == 0 ? NEG_INF : dcUp;      // D's first value in this stretch
        const float dcLeft = __shfl_sync(FULL, dc, left);
        const float c0 = z == 0 ? NEG_INF : dcLeft;          // the carry entering lane z

        // The first D->D pass: this stretch as a map, the maps of the
        // stretches before it composed, then the pass itself. Both sweeps
        // load a vector's D (dcIn for the first) and D->D mask; the pass
        // writes only the vector's own D.
        const auto loadD = [&](int q) { return float2{q == qa ? dcIn : cr[12 * q + 4 + z], dd[4 * q + z]}; };
        DMap f = {true, NEG_INF, NEG_INF};
        sweep<ENV_AHEAD>(qa, qb, 1, loadD, [&](int, const float2& v) {
            const DMap step = {v.y > 0.0f, v.x, 0.0f};
            f = dmap_then(f, step);
            return true;
        });
        DMap pre = {true, NEG_INF, NEG_INF};
        for (int r = 0; r < ENV_PARTS; r++) {
            DMap g;
            g.keep = __shfl_sync(FULL, (int)f.keep, 4 * r + z) != 0;
            g.a = __shfl_sync(FULL, f.a, 4 * r + z);
            g.b = __shfl_sync(FULL, f.b, 4 * r + z);
            if (r < part) pre = dmap_then(pre, g);
        }
        float c = dmap_apply(pre, c0);
        sweep<ENV_AHEAD>(qa, qb, 1, loadD, [&](int q, const float2& w) {
            const float v = vmax(c, w.x);
            cr[12 * q + 4 + z] = v;
            c = band(w.y, v);
            return true;
        });
        // Passes two to four only carry a value along: their starts, then
        // one sweep. A stretch's carries enter masked by the vectors before.
        const float c1Left = __shfl_sync(FULL, c, left);
        const float c2 = z == 0 ? NEG_INF : c1Left;
        const float c2Left = __shfl_sync(FULL, ddAll ? c2 : 0.0f, (z + 3) & 3);
        const float c3 = z == 0 ? NEG_INF : c2Left;
        const float c3Left = __shfl_sync(FULL, ddAll ? c3 : 0.0f, (z + 3) & 3);
        const float c4 = z == 0 ? NEG_INF : c3Left;
        {
            float a = before ? c2 : 0.0f, b = before ? c3 : 0.0f, cc = before ? c4 : 0.0f;
            // A vector writes only its own D.
            sweep<ENV_AHEAD>(
                qa, qb, 1, [&](int q) { return float2{cr[12 * q + 4 + z], dd[4 * q + z]}; },
                [&](int q, const float2& w) {
                    float v = vmax(a, w.x);
                    v = vmax(b, v);
                    v = vmax(cc, v);
                    cr[12 * q + 4 + z] = v;
                    xe = vmax(xe, v);
                    const float m = w.y;
                    a = band(m, a), b = band(m, b), cc = band(m, cc);
                    return true;
                });
        }
        // The row's E: the maximum of every M and D cell, in any order.
        for (int o = 16; o >= 1; o >>= 1) xe = vmax(xe, __shfl_xor_sync(FULL, xe, o));
        const float xE = xe;
        const float* cx = bx + 6 * i;
        const float xJ = vmax(jLoop ? fadd(pxJ, cx[2]) : 0.0f, eLoop ? xE : 0.0f);
        const float xC = vmax(cLoop ? fadd(pxC, cx[4]) : 0.0f, eMove ? xE : 0.0f);
        const float xN = nLoop ? fadd(pxN, cx[1]) : 0.0f;
        xB = vmax(nMove ? xN : 0.0f, jMove ? xJ : 0.0f);
        if (lane == 0) {
            float* x = fx + 6 * i;
            x[0] = xE, x[1] = xN, x[2] = xJ, x[3] = xB, x[4] = xC;
        }
        pxN = xN, pxJ = xJ, pxC = xC;
        if (i == L) oasc = xC;
        // null2: row i added into the sums (row 1 was copied there).
        // Row 0's cells of a vector are the only ones its work writes.
        if ((d.flags & ENV_NULL2) && i > 1) {
            sweep<ENV_AHEAD>(
                qa, qb, 1,
                [&](int q) {
                    const int j = 12 * q + z;
                    return float4{pp[j], bm[j], pp[j + 8], bm[j + 8]};
                },
                [&](int q, const float4& v) {
                    const int j = 12 * q + z;
                    bm[j] = fadd(v.x, v.y);
                    bm[j + 8] = fadd(v.z, v.w);
                    return true;
                });
        }
        if (i < L) decode_row(fm + rowFloats * (i + 1), bm + rowFloats * (i + 1), qa, qb, z, bx[6 * (i + 1) + 5]);
        __syncwarp();  // row i is whole before row i+1 reads it
    }
    if (lane == 0) {
        EnvDecoded r;
        r.oasc = err ? 0.0f : oasc;
        r.err = err;
        r.xN = sN, r.xC = sC, r.xJ = sJ;
        out[e] = r;
    }
}

#endif
