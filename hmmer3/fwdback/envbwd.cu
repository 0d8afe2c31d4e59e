// Envelope rescoring's Backward on the GPU: fwdback.Backward(.., true) of
// many envelopes, bit for bit, a warp an envelope. Compiled after fwd.cu,
// bwd.cu and envdecode.cu (ENV_KERNELS only), whose helpers, profile
// layout and EnvDesc it uses.
//
// bwd_kernel gives each target four threads, one per SSE lane; a query
// has too few envelopes for that to fill a GPU, and each thread then
// waits on its loads row after row (docs/BENCHMARKS.md). Here each lane's
// vectors are cut into eight stretches, a thread each, for the work that
// is independent across a row: phase 1's M, D and I cells (from row i+1
// and the vector after), phase 3's M += E, phase 5's M->D paths and the
// rescaling. What HMMER does serially along a lane stays serial, on one
// thread a lane, in HMMER's order: the B sum (q descending; row 0's q
// ascending), phase 3's D chain and phase 4's carries. Those are one or
// two dependent operations a vector on values the warp has just written,
// the B sum's terms from shared memory.
//
// Rows are stored rescaled, as Backward(.., true) keeps them, and the
// next row reads the stored values: the same float products bwd.cu's
// deferred rescaling computes. The Forward's special rows (fxrows, from
// env_fwd_kernel) give the scale factors until Backward switches to its own.
#if ENV_KERNELS

// EnvRows is what one envelope's Forward (envfwd.cu) or Backward reads
// and writes.
struct EnvRows {
    const float* trans;  // the plan's [Q][4][8] transitions
    const float* odds;   // [KP+1][QS][4] match odds
    const float* fx;     // Forward's special rows
    float* bx;           // Backward's special rows (Forward's, in envfwd.cu)
    float* bm;           // Backward's full matrix (Forward's)
    float* terms;        // 4*Q floats of shared memory: the B sum's terms (the M->D values)
    int Q, QS, KP;
};

// env_rows is an envelope's EnvRows; a block is one warp, so the shared
// memory is the warp's.
__device__ __forceinline__ EnvRows env_rows(const float* trans, const float* odds, int Q, int QS, int KP, const float* fx,
                                            float* x, float* m)
{
    EnvRows b;
    b.trans = trans, b.odds = odds, b.Q = Q, b.QS = QS, b.KP = KP;
    b.fx = fx, b.bx = x, b.bm = m;
    b.terms = (float*)SHARED_BASE;
    return b;
}

// tr is transition t (0..7: BM MM IM DM MD MI II DD) of vector q, lane z.
__device__ __forceinline__ float tr(const EnvRows& b, int q, int z, int t) { return b.trans[q * 32 + z * 8 + t]; }

// Tr8 is vector q's eight transitions of lane z in tr's order, two
// 16-byte loads (the plan's rows of 8 floats sit 32-byte aligned).
struct Tr8 {
    float t[8];
};

__device__ __forceinline__ Tr8 tr8(const EnvRows& b, int q, int z)
{
    const float4* p = (const float4*)(b.trans + q * 32 + z * 8);
    const float4 u = p[0], v = p[1];
    Tr8 r = {{u.x, u.y, u.z, u.w, v.x, v.y, v.z, v.w}};
    return r;
}

// rf is the match odds of residue x at vector q, lane z.
__device__ __forceinline__ float rf(const EnvRows& b, int x, int q, int z) { return b.odds[((long long)x * b.QS + q) * 4 + z]; }

// env_bwd_kernel runs in blocks of one warp, with 16*Q bytes of dynamic
// shared memory.
// lane_sum is the sum of the four lanes' values v held by threads 0 to 3
// (HMMER's horizontal sum, (x0+x1)+(x2+x3)), in every thread.
__device__ __forceinline__ float lane_sum(float v)
{
    const float v0 = __shfl_sync(FULL, v, 0), v1 = __shfl_sync(FULL, v, 1);
    const float v2 = __shfl_sync(FULL, v, 2), v3 = __shfl_sync(FULL, v, 3);
    return fadd(fadd(v0, v1), fadd(v2, v3));
}

// scale_stretch multiplies this thread's cells of row r by inv.
__device__ __forceinline__ void scale_stretch(float* r, int qa, int qb, int z, float inv)
{
    sweep<ENV_AHEAD>(
        qa, qb, 1, [&](int q) { return float3{r[12 * q + z], r[12 * q + 4 + z], r[12 * q + 8 + z]}; },
        [&](int q, const float3& v) {
            r[12 * q + z] = fmul(v.x, inv), r[12 * q + 4 + z] = fmul(v.y, inv), r[12 * q + 8 + z] = fmul(v.z, inv);
            return true;
        });
}

// md_paths is Backward's M->D paths of row r, this thread's stretch:
// M(q) += D(q+1) * MD(q), lane z+1's D(0) after the lane's last vector
// (lane 3: none). Every thread of the warp calls it.
__device__ __forceinline__ void md_paths(const EnvRows& b, float* r, int qa, int qb, int z)
{
    const float w = __shfl_down_sync(FULL, r[4 + z], 1, 4);
    const float dNext = z == 3 ? 0.0f : w;
    sweep<ENV_AHEAD>(
        qa, qb, 1, [&](int q) { return float3{r[12 * q + z], q == b.Q - 1 ? dNext : r[12 * (q + 1) + 4 + z], tr(b, q, z, 4)}; },
        [&](int q, const float3& v) {
            r[12 * q + z] = fadd(v.x, fmul(v.y, v.z));
            return true;
        });
}

extern "C" __global__ void __launch_bounds__(32)
env_bwd_kernel(const EnvDesc* __restrict__ desc, int n, const float* __restrict__ trans,
               const float* __restrict__ odds, int Q, int QS, int KP, const unsigned char* __restrict__ res,
               const long long* __restrict__ roff, const float2* __restrict__ loopmove, float emove, float eloop,
               const float* __restrict__ fxrows, float* __restrict__ bxrows, int* __restrict__ ownScales,
               float* __restrict__ bmat)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int e = t >> 5, lane = t & 31, z = lane & 3, part = lane >> 2;
    if (e >= n) return;  // the whole warp: one envelope a warp
    const EnvDesc d = desc[e];
    const float2 lm = loopmove[e];
    const float ploop = lm.x, pmove = lm.y;
    const EnvRows b = env_rows(trans, odds, Q, QS, KP, fxrows + d.xrow, bxrows + d.xrow, bmat + d.mat);
    const unsigned char* dsq = res + roff[e];
    const int L = d.L;
    const long long rowFloats = 12LL * Q;
    const Stretch sp = stretch_of(part, Q);
    const int qa = sp.qa, qb = sp.qb;
    const bool chain = part == 0;  // this lane's serial work
    float* row = b.bm + rowFloats * L;

    // Row L.
    float xJ = 0.0f, xB = 0.0f, xN = 0.0f, xC = pmove;
    float xE = fmul(xC, emove);
    for (int q = qa; q < qb; q++) {
        row[12 * q + z] = xE;
        row[12 * q + 4 + z] = xE;
        row[12 * q + 8 + z] = 0.0f;
    }
    __syncwarp();
    float dcv = 0.0f;
    {
        float dpv = __shfl_down_sync(FULL, xE, 1, 4);
        dpv = z == 3 ? 0.0f : dpv;
        if (chain) {
            for (int q = Q - 1; q >= 0; q--) {
                dcv = fmul(dpv, tr(b, q, z, 7));
                const float v = fadd(row[12 * q + 4 + z], dcv);
                row[12 * q + 4 + z] = v;
                dpv = v;
            }
        }
        for (int j = 1; j < 4; j++) {
            const float w = __shfl_down_sync(FULL, dcv, 1, 4);
            dcv = z == 3 ? 0.0f : w;
            if (chain) {
                for (int q = Q - 1; q >= 0; q--) {
                    dcv = fmul(dcv, tr(b, q, z, 7));
                    row[12 * q + 4 + z] = fadd(row[12 * q + 4 + z], dcv);
                }
            }
        }
    }
    __syncwarp();
    md_paths(b, row, qa, qb, z);
    float s = b.fx[6 * L + 5];
    float inv = 1.0f;
    if (s > 1.0f) {
        xE = fdiv(xE, s), xN = fdiv(xN, s), xC = fdiv(xC, s), xJ = fdiv(xJ, s), xB = fdiv(xB, s);
        inv = flush64(1.0 / (double)s);
    }
    __syncwarp();
    scale_stretch(row, qa, qb, z, inv);
    if (lane == 0) put_xrow(b.bx + 6 * L, xE, xN, xJ, xB, xC, s);
    __syncwarp();

    bool own = false;
    for (int i = L - 1; i >= 1; i--) {
        const float* pr = b.bm + rowFloats * (i + 1);
        float* cr = b.bm + rowFloats * i;
        const int x = min((int)dsq[i], KP);  // residue i+1
        // Phase 1: complete I(i), partial M(i) and D(i), and the B terms.
        {
            // What enters this stretch's last vector from the vector
            // after: its M times its match odds, and its transitions (lane
            // z+1's vector 0 after the lane's last vector; lane 3 none).
            const float m0 = fmul(pr[z], rf(b, x, 0, z));
            const float w = __shfl_down_sync(FULL, m0, 1, 4);
            float mpv, tmmv, timv, tdmv;
            if (qb == Q) {
                mpv = z == 3 ? 0.0f : w;
                tmmv = z == 3 ? 0.0f : tr(b, 0, z + 1, 1);
                timv = z == 3 ? 0.0f : tr(b, 0, z + 1, 2);
                tdmv = z == 3 ? 0.0f : tr(b, 0, z + 1, 3);
            } else if (qa < qb) {
                mpv = fmul(pr[12 * qb + z], rf(b, x, qb, z));
                tmmv = tr(b, qb, z, 1), timv = tr(b, qb, z, 2), tdmv = tr(b, qb, z, 3);
            } else {
                mpv = tmmv = timv = tdmv = 0.0f;
            }
            struct In {
                float i, m, o;
                Tr8 t;
            };
            sweep<ENV_AHEAD>(
                qb - 1, qa - 1, -1,
                [&](int q) {
                    const int j = 12 * q + z;
                    return In{pr[j + 8], pr[j], rf(b, x, q, z), tr8(b, q, z)};
                },
                [&](int q, const In& v) {
                    const int j = 12 * q + z;
                    cr[j + 8] = fadd(fmul(v.i, v.t.t[6]), fmul(mpv, timv));
                    cr[j + 4] = fmul(mpv, tdmv);
                    const float mcv = fadd(fmul(v.i, v.t.t[5]), fmul(mpv, tmmv));
                    mpv = fmul(v.m, v.o);
                    cr[j] = mcv;
                    tdmv = v.t.t[3], timv = v.t.t[2], tmmv = v.t.t[1];
                    b.terms[4 * q + z] = fmul(mpv, v.t.t[0]);
                    return true;
                });
        }
        __syncwarp();
        float xBv = 0.0f;
        if (chain)
            for (int q = Q - 1; q >= 0; q--) xBv = fadd(xBv, b.terms[4 * q + z]);

        // Phase 2: specials (lane z's sums are on thread z).
        xB = lane_sum(xBv);
        xC = fmul(xC, ploop);
        xJ = fadd(fmul(xB, pmove), fmul(xJ, ploop));
        xN = fadd(fmul(xB, pmove), fmul(xN, ploop));
        xE = fadd(fmul(xC, emove), fmul(xJ, eloop));

        // Phase 3: the {M,D}->E paths and one D->D pass; the D chain on
        // the lane's thread, M += E on every thread.
        {
            const float w = __shfl_down_sync(FULL, fadd(cr[4 + z], xE), 1, 4);
            float dpv = z == 3 ? 0.0f : w;
            if (chain) {
                sweep<ENV_CHAIN>(
                    Q - 1, -1, -1, [&](int q) { return float2{cr[12 * q + 4 + z], tr(b, q, z, 7)}; },
                    [&](int q, const float2& v) {
                        dcv = fmul(dpv, v.y);
                        dpv = fadd(v.x, fadd(dcv, xE));
                        cr[12 * q + 4 + z] = dpv;
                        return true;
                    });
            }
            sweep<ENV_AHEAD>(
                qa, qb, 1, [&](int q) { return cr[12 * q + z]; },
                [&](int q, float m) {
                    cr[12 * q + z] = fadd(m, xE);
                    return true;
                });
        }
        // Phase 4: three more D->D passes, each lane's carry stopping once
        // it is zero (it would add +0 to the D cells after: zeroCarry).
        for (int j = 1; j < 4; j++) {
            const float w = __shfl_down_sync(FULL, dcv, 1, 4);
            dcv = z == 3 ? 0.0f : w;
            if (chain) {
                sweep<ENV_CHAIN>(
                    Q - 1, -1, -1, [&](int q) { return float2{cr[12 * q + 4 + z], tr(b, q, z, 7)}; },
                    [&](int q, const float2& v) {
                        if (dcv == 0.0f) return false;
                        dcv = fmul(dcv, v.y);
                        if (dcv == 0.0f) return false;
                        cr[12 * q + 4 + z] = fadd(v.x, dcv);
                        return true;
                    });
            }
        }
        __syncwarp();
        // Phase 5: M->D paths.
        md_paths(b, cr, qa, qb, z);
        // Rescaling: the Forward's factor of the row until B grows past
        // 1e16 (compared in double), then B itself when it exceeds 1e4.
        if ((double)xB > 1.0e16) own = true;
        if (own) {
            s = xB > 1.0e4f ? xB : 1.0f;
        } else {
            s = b.fx[6 * i + 5];
        }
        inv = 1.0f;
        if (s > 1.0f) {
            xE = fdiv(xE, s), xN = fdiv(xN, s), xJ = fdiv(xJ, s), xB = fdiv(xB, s), xC = fdiv(xC, s);
            inv = flush64(1.0 / (double)s);
        }
        __syncwarp();  // phase 5 read D(q+1) of other threads' stretches
        if (s > 1.0f) scale_stretch(cr, qa, qb, z, inv);
        if (lane == 0) put_xrow(b.bx + 6 * i, xE, xN, xJ, xB, xC, s);
        __syncwarp();
    }

    // Row 0: the B paths summed with q ascending, from row 1 and residue 1.
    {
        const float* r1 = b.bm + rowFloats;
        const int x0 = min((int)dsq[0], KP);
        for (int q = qa; q < qb; q++) b.terms[4 * q + z] = fmul(fmul(r1[12 * q + z], rf(b, x0, q, z)), tr(b, q, z, 0));
        __syncwarp();
        float xBv = 0.0f;
        if (chain)
            for (int q = 0; q < Q; q++) xBv = fadd(xBv, b.terms[4 * q + z]);
        const float xB0 = lane_sum(xBv);
        const float xN0 = fadd(fmul(xB0, pmove), fmul(xN, ploop));
        if (lane == 0) {
            put_xrow(b.bx, 0.0f, xN0, 0.0f, xB0, 0.0f, 1.0f);
            ownScales[e] = own ? 1 : 0;
        }
    }
}

#endif
