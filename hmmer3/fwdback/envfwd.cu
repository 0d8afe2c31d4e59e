// Envelope rescoring's Forward on the GPU: fwdback.Forward(.., true) of
// many envelopes, bit for bit, a warp an envelope, as envbwd.cu does
// Backward (and for the same reason: a query's few envelopes leave
// fwd_kernel's four threads a target waiting on their loads). Compiled
// after envbwd.cu (ENV_KERNELS only), whose EnvRows and helpers it uses.
//
// Each lane's vectors are cut into eight stretches, a thread each, for
// what is independent across a row: the M and I cells (from the previous
// row and B), the M->D values, and the rescaling. What HMMER does
// serially along a lane stays serial on one thread a lane, in its order:
// the E sum over the M cells, then the first D->D pass (run in the same
// loop: two independent chains), the passes that carry a value along
// (stopping as fwdback.forwardRowGo does), and the E sum over the D
// cells. Rows are stored rescaled, as Forward(.., true) keeps them; the
// host takes the score from the special rows (assembleParsers).
#if ENV_KERNELS

// env_fwd_kernel runs in blocks of one warp, with 16*Q bytes of dynamic
// shared memory. check: the D->D passes after the second stop once no D
// cell grows (HMMER's M >= 100), else all four run while a carry is left.
extern "C" __global__ void __launch_bounds__(32)
env_fwd_kernel(const EnvDesc* __restrict__ desc, int n, const float* __restrict__ trans,
               const float* __restrict__ odds, int Q, int QS, int KP, int check, const unsigned char* __restrict__ res,
               const long long* __restrict__ roff, const float2* __restrict__ loopmove, float emove, float eloop,
               float* __restrict__ fxrows, float* __restrict__ fmat)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int e = t >> 5, lane = t & 31, z = lane & 3, part = lane >> 2;
    if (e >= n) return;  // the whole warp: one envelope a warp
    const EnvDesc d = desc[e];
    const float2 lm = loopmove[e];
    const float ploop = lm.x, pmove = lm.y;
    const EnvRows b = env_rows(trans, odds, Q, QS, KP, 0, fxrows + d.xrow, fmat + d.mat);
    const unsigned char* dsq = res + roff[e];
    const int L = d.L;
    const long long rowFloats = 12LL * Q;
    const Stretch sp = stretch_of(part, Q);
    const int qa = sp.qa, qb = sp.qb;
    const bool chain = part == 0;  // this lane's serial work

    // Row 0.
    for (int q = qa; q < qb; q++)
        for (int c = 0; c < 3; c++) b.bm[12 * q + 4 * c + z] = 0.0f;
    float xE = 0.0f, xN = 1.0f, xJ = 0.0f, xC = 0.0f, xB = pmove;
    if (lane == 0) put_xrow(b.bx, xE, xN, xJ, xB, xC, 1.0f);
    __syncwarp();

    for (int i = 1; i <= L; i++) {
        const float* pr = b.bm + rowFloats * (i - 1);
        float* cr = b.bm + rowFloats * i;
        const int x = min((int)dsq[i - 1], KP);  // residue i
        // M and I, and the M->D value of each vector.
        if (qa < qb) {
            struct In {
                float m, d, i, o;
                Tr8 t;
            };
            float mp, dp, ip;
            stretch_entry(pr, qa, Q, z, 0.0f, &mp, &dp, &ip);
            sweep<ENV_AHEAD>(
                qa, qb, 1,
                [&](int q) {
                    const int j = 12 * q + z;
                    return In{pr[j], pr[j + 4], pr[j + 8], rf(b, x, q, z), tr8(b, q, z)};
                },
                [&](int q, const In& v) {
                    const int j = 12 * q + z;
                    float sv = fmul(xB, v.t.t[0]);
                    sv = fadd(sv, fmul(mp, v.t.t[1]));
                    sv = fadd(sv, fmul(ip, v.t.t[2]));
                    sv = fadd(sv, fmul(dp, v.t.t[3]));
                    sv = fmul(sv, v.o);
                    mp = v.m, dp = v.d, ip = v.i;
                    cr[j] = sv;
                    cr[j + 8] = fadd(fmul(mp, v.t.t[5]), fmul(ip, v.t.t[6]));
                    b.terms[4 * q + z] = fmul(sv, v.t.t[4]);
                    return true;
                });
        }
        __syncwarp();
        // The E sum over the M cells and the first D->D pass, which
        // starts with the M->D value leaving lane z-1.
        float xe = 0.0f, c = z == 0 ? 0.0f : b.terms[4 * (Q - 1) + z - 1];
        if (chain) {
            float dc = 0.0f;
            sweep<ENV_CHAIN>(
                0, Q, 1, [&](int q) { return float3{cr[12 * q + z], tr(b, q, z, 7), b.terms[4 * q + z]}; },
                [&](int q, const float3& v) {
                    xe = fadd(xe, v.x);
                    const float d = fadd(c, dc);
                    cr[12 * q + 4 + z] = d;
                    c = fmul(d, v.y);
                    dc = v.z;
                    return true;
                });
        }
        // Up to three passes that only carry a value along (see
        // forwardRowGo), each lane stopping once its carry is zero.
        for (int p = 1; p < 4; p++) {
            const float w = __shfl_up_sync(FULL, c, 1, 4);
            c = z == 0 ? 0.0f : w;
            bool changed = false;
            if (chain) {
                sweep<ENV_CHAIN>(
                    0, Q, 1, [&](int q) { return float2{cr[12 * q + 4 + z], tr(b, q, z, 7)}; },
                    [&](int q, const float2& v) {
                        if (c == 0.0f) return false;
                        const float d = fadd(c, v.x);
                        if (d > v.x) changed = true;
                        cr[12 * q + 4 + z] = d;
                        c = fmul(c, v.y);
                        return true;
                    });
            }
            const bool left = __any_sync(FULL, chain && c != 0.0f);
            const bool grew = __any_sync(FULL, changed);
            if (!left || (check && !grew)) break;
        }
        if (chain)
            sweep<ENV_CHAIN>(
                0, Q, 1, [&](int q) { return cr[12 * q + 4 + z]; },
                [&](int, float v) {
                    xe = fadd(v, xe);
                    return true;
                });
        xE = lane_sum(xe);
        xN = fmul(xN, ploop);
        xC = fadd(fmul(xC, ploop), fmul(xE, emove));
        xJ = fadd(fmul(xJ, ploop), fmul(xE, eloop));
        xB = fadd(fmul(xJ, pmove), fmul(xN, pmove));
        float scale = 1.0f;
        __syncwarp();  // the D cells the lane threads wrote
        if (xE > 1.0e4f) {
            xN = fdiv(xN, xE), xC = fdiv(xC, xE), xJ = fdiv(xJ, xE), xB = fdiv(xB, xE);
            const float inv = flush64(1.0 / (double)xE);
            scale_stretch(cr, qa, qb, z, inv);
            scale = xE;
            xE = 1.0f;
        }
        if (lane == 0) put_xrow(b.bx + 6 * i, xE, xN, xJ, xB, xC, scale);
        __syncwarp();  // row i is whole before row i+1 reads it
    }
}

#endif
