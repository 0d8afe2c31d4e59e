// Envelope rescoring's posterior decoding, optimal accuracy and null2 row
// sums on the GPU (fwdback.DecodeAlign), bit for bit, for many envelopes
// of one model whose full Forward and Backward matrices fwd_kernel and
// bwd_kernel have just stored (FULL_MATS). The trace kernel (envtrace.cu)
// runs next on what this one leaves.
//
// Why four threads an envelope. As in fwd.cu, HMMER's four SSE lanes act
// on their own cells except where a value crosses from vector Q-1 of lane
// z-1 into vector 0 of lane z: the previous row's M, D and I entering a
// row, the M->D carry entering the first D->D pass, and the carries of
// passes two to four; and the row's E maximum. Thread z of a group does
// lane z's cells in HMMER's order and the crossings are shuffles within
// the group, so each cell sees the same operations as on the CPU. Decoding
// (F*B)*scale and null2's sums never cross lanes. The D->D passes run as
// oaRowGo runs them: the first over the D cells once the M->D carry of
// lane z-1 is known, then the start values of passes two to four, which
// never read a D cell, and one sweep applying them.
//
// The special states' posteriors and each row's scale are serial over the
// rows and cheap: thread 0 of a group computes them first, into the
// envelope's Backward special rows (pp.X, as DecodeAlign leaves them),
// keeping each row's decoding scale in the scale column, where the CPU
// leaves 0 and nothing reads it. Posteriors go into bmat (pp), optimal
// accuracy into fmat and its specials into the Forward special rows (ox,
// ox.X), null2's sums into pp's row 0, where DecodeAlign puts them.
//
// A warp holds eight envelopes, which walk their rows in lock-step up to
// the longest (the host sorts envelopes by length); shuffles always have
// every lane of the warp, as the CPU shim checks. An envelope whose scale
// overflows (ErrRange: HMMER drops it) or that the host marks ENV_SKIP
// (Forward or Backward failed) only gets its record.
#if FULL_MATS

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

// from_left_inf is esl_sse_rightshift_ps(v, -inf) within a group of four.
__device__ __forceinline__ float from_left_inf(float v, int z)
{
    float w = __shfl_up_sync(FULL, v, 1, 4);
    return z == 0 ? NEG_INF : w;
}

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

// decode_row is decodeRowsGo for lane z of one row: (F*B)*t into p.
__device__ __forceinline__ void decode_row(const float* f, float* p, int Q, int z, float t)
{
    for (int q = 0; q < Q; q++) {
        const int j = 12 * q + z;
        p[j] = fmul(fmul(f[j], p[j]), t);
        p[j + 4] = 0.0f;
        p[j + 8] = fmul(fmul(f[j + 8], p[j + 8]), t);
    }
}

extern "C" __global__ void __launch_bounds__(128)
env_decode_kernel(const EnvDesc* __restrict__ desc, int n, int Q, int M, const float* __restrict__ tf,
                  const float2* __restrict__ loopmove, float eloop, float emove, float* __restrict__ fmat,
                  float* __restrict__ bmat, float* __restrict__ fxrows, float* __restrict__ bxrows,
                  EnvDecoded* __restrict__ out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int e = t >> 2, z = t & 3;
    if (((t & ~31) >> 2) >= n) return;  // the whole warp has no envelope
    (void)M;
    const bool real = e < n;
    EnvDesc d = {0, 0, 0, 0, ENV_SKIP};
    if (real) d = desc[e];
    const float2 lm = real ? loopmove[e] : make_float2(0.0f, 0.0f);
    float* fx = fxrows + d.xrow;
    float* bx = bxrows + d.xrow;
    float* fm = fmat + d.mat;
    float* bm = bmat + d.mat;
    const long long rowFloats = 12LL * Q;

    int err = 0;
    float sN = 0.0f, sC = 0.0f, sJ = 0.0f;
    if (real && z == 0 && !(d.flags & ENV_SKIP))
        err = decode_specials(fx, bx, d.L, (d.flags & ENV_OWN_SCALES) != 0, lm.x, &sN, &sC, &sJ) ? 1 : 0;
    err = __shfl_sync(FULL, err, 0, 4);
    __syncwarp();  // pp.X, with the row scales, is in memory for the group
    const int L = (real && !err && !(d.flags & ENV_SKIP)) ? d.L : 0;
    int maxL = L;
    for (int o = 16; o >= 4; o >>= 1) maxL = max(maxL, __shfl_xor_sync(FULL, maxL, o));

    // The D->D masks of this lane, ANDed (ddAll).
    const float* dd = tf + 28 * Q;
    bool ddAll = true;
    for (int q = 0; q < Q; q++) ddAll = ddAll && dd[4 * q + z] > 0.0f;

    if (L > 0) {
        for (int q = 0; q < Q; q++)
            for (int s = 0; s < 3; s++) fm[12 * q + 4 * s + z] = NEG_INF;
        decode_row(fm + rowFloats, bm + rowFloats, Q, z, bx[6 + 5]);
        if (d.flags & ENV_NULL2)
            for (int q = 0; q < Q; q++)
                for (int s = 0; s < 3; s++) bm[12 * q + 4 * s + z] = bm[rowFloats + 12 * q + 4 * s + z];
        if (z == 0) {
            fx[0] = NEG_INF, fx[1] = 0.0f, fx[2] = NEG_INF, fx[3] = 0.0f, fx[4] = NEG_INF, fx[5] = 0.0f;
        }
    }
    const bool jLoop = lm.x != 0.0f, cLoop = jLoop, nLoop = jLoop;
    const bool nMove = lm.y != 0.0f, jMove = nMove;
    const bool eLoop = eloop != 0.0f, eMove = emove != 0.0f;

    // The previous row's vector Q-1 of this lane, and its specials.
    float lastM = NEG_INF, lastD = NEG_INF, lastI = NEG_INF;
    float xB = 0.0f, pxN = 0.0f, pxJ = NEG_INF, pxC = NEG_INF, oasc = 0.0f;
    for (int i = 1; i <= maxL; i++) {
        const bool act = i <= L;
        const float* pr = fm + rowFloats * (i - 1);
        float* cr = fm + rowFloats * i;
        const float* pp = bm + rowFloats * i;
        float mp = from_left_inf(lastM, z), dp = from_left_inf(lastD, z), ip = from_left_inf(lastI, z);
        float xe = NEG_INF, dc = NEG_INF;
        if (act) {
            // M, I, and D as the M->D value from the vector before.
            for (int q = 0; q < Q; q++) {
                const float* tq = tf + 28 * q + z;
                const int j = 12 * q + z;
                float sv = band(tq[4 * TBM], xB);
                sv = vmax(sv, band(tq[4 * TMM], mp));
                sv = vmax(sv, band(tq[4 * TIM], ip));
                sv = vmax(sv, band(tq[4 * TDM], dp));
                sv = fadd(sv, pp[j]);
                xe = vmax(xe, sv);
                mp = pr[j], dp = pr[j + 4], ip = pr[j + 8];
                cr[j] = sv;
                cr[j + 4] = dc;
                dc = band(tq[4 * TMD], sv);
                cr[j + 8] = fadd(vmax(band(tq[4 * TMI], mp), band(tq[4 * TII], ip)), pp[j + 8]);
            }
            lastM = cr[12 * (Q - 1) + z];
            lastI = cr[12 * (Q - 1) + 8 + z];
        }
        // The first D->D pass, from the M->D carry of lane z-1.
        float c = from_left_inf(dc, z);
        if (act) {
            for (int q = 0; q < Q; q++) {
                const int j = 12 * q + 4 + z;
                const float v = vmax(c, cr[j]);
                cr[j] = v;
                c = band(dd[4 * q + z], v);
            }
        }
        // Passes two to four only carry a value along.
        const float c2 = from_left_inf(c, z);
        const float c3 = from_left_inf(ddAll ? c2 : 0.0f, z);
        const float c4 = from_left_inf(ddAll ? c3 : 0.0f, z);
        if (act) {
            float a = c2, b = c3, cc = c4;
            for (int q = 0; q < Q; q++) {
                const int j = 12 * q + 4 + z;
                float v = vmax(a, cr[j]);
                v = vmax(b, v);
                v = vmax(cc, v);
                cr[j] = v;
                xe = vmax(xe, v);
                const float m = dd[4 * q + z];
                a = band(m, a), b = band(m, b), cc = band(m, cc);
            }
            lastD = cr[12 * (Q - 1) + 4 + z];
        }
        // The row's specials, in every thread of the group; thread 0 stores them.
        const float x0 = __shfl_sync(FULL, xe, 0, 4), x1 = __shfl_sync(FULL, xe, 1, 4);
        const float x2 = __shfl_sync(FULL, xe, 2, 4), x3 = __shfl_sync(FULL, xe, 3, 4);
        if (act) {
            float xE = x0;
            if (x1 > xE) xE = x1;
            if (x2 > xE) xE = x2;
            if (x3 > xE) xE = x3;
            const float* cx = bx + 6 * i;
            const float xJ = vmax(jLoop ? fadd(pxJ, cx[2]) : 0.0f, eLoop ? xE : 0.0f);
            const float xC = vmax(cLoop ? fadd(pxC, cx[4]) : 0.0f, eMove ? xE : 0.0f);
            const float xN = nLoop ? fadd(pxN, cx[1]) : 0.0f;
            xB = vmax(nMove ? xN : 0.0f, jMove ? xJ : 0.0f);
            if (z == 0) {
                float* x = fx + 6 * i;
                x[0] = xE, x[1] = xN, x[2] = xJ, x[3] = xB, x[4] = xC;
            }
            pxN = xN, pxJ = xJ, pxC = xC;
            if (i == L) oasc = xC;
            // null2: row i added into the sums (row 1 was copied there).
            if ((d.flags & ENV_NULL2) && i > 1) {
                for (int q = 0; q < Q; q++) {
                    const int j = 12 * q + z;
                    bm[j] = fadd(pp[j], bm[j]);
                    bm[j + 8] = fadd(pp[j + 8], bm[j + 8]);
                }
            }
            if (i < L) decode_row(fm + rowFloats * (i + 1), bm + rowFloats * (i + 1), Q, z, bx[6 * (i + 1) + 5]);
        }
    }
    if (real && z == 0) {
        EnvDecoded r;
        r.oasc = err ? 0.0f : oasc;
        r.err = err;
        r.xN = sN, r.xC = sC, r.xJ = sJ;
        out[e] = r;
    }
}

#endif
