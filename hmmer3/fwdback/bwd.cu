// HMMER 3.3.2's Backward parser (p7_BackwardParser) on the GPU, bit for
// bit with fwdback.Backward. Compiled after fwd.cu, in the same program:
// it uses fwd.cu's Block, helpers, profile layout and row-state layout,
// and the same argument for exactness. Each target runs on four threads,
// one per SSE lane, performing its lane's operations in HMMER's order;
// the lane crossings (esl_sse_leftshift_ps: lane z takes lane z+1's value,
// lane 3 a zero) are shuffles down within the target's group of four.
//
// Backward runs from row L down to row 0, so a warp's eight targets, whose
// lengths differ, are aligned at their ends: step s is row L-s of every
// target. Step 0 is the initialisation of row L; a target reaches row 0 at
// step L and is done after it. Row 0 sums its B paths with q ascending,
// unlike the other rows, so it has its own sweep, run when any target of
// the warp is there (it reads the state before the step's general row,
// which every thread runs, overwrites it).
//
// Backward rescales with the Forward's row scale factors (read from the
// Forward kernel's special rows, fxrows) until its own B value exceeds
// 1e16 in some row; from then on with its own, as HMMER does. Rescaling is
// deferred to the next row's reads, as in fwd.cu; Backward reads only the
// M and I values of the row below, never D.
//
// Outputs: every row's special states (E, N, J, B, C, scale) from
// bxrows + xoff[target], and whether Backward switched to its own scale
// factors. The host computes the total scale and the score from them.

// from_right gives lane z the value of lane z+1 of the same target and lane
// 3 a zero: esl_sse_leftshift_ps(v, zero).
__device__ __forceinline__ float from_right(float v, int z)
{
    float w = __shfl_down_sync(FULL, v, 1, 4);
    return z == 3 ? 0.0f : w;
}

__device__ __forceinline__ float hsum4(float v)
{
    const float h = fadd(v, __shfl_xor_sync(FULL, v, 1));
    return fadd(h, __shfl_xor_sync(FULL, h, 2));
}

extern "C" __global__ void __launch_bounds__(BLOCK)
bwd_kernel(const float* __restrict__ gtrans, const float* __restrict__ godds,
           int Q, int QS, int KP,
           const unsigned char* __restrict__ res, const Block* __restrict__ blocks, int nblocks,
           unsigned int* next, const float2* __restrict__ loopmove, float emove, float eloop,
           float* gstate, const float* __restrict__ fxrows, const long long* __restrict__ xoff,
           float* __restrict__ bxrows, int* __restrict__ ownScales)
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
    const int g = lane >> 2;
    const int z = lane & 3;
    const long long stFloats = 3LL * Q * 32;
#if STATE_SHARED
    float* st = sp + warp * stFloats;
#else
    float* st = gstate + ((long long)blockIdx.x * (BLOCK / 32) + warp) * stFloats;
#endif
    float2* MI = (float2*)st + lane;
    float* D = st + 2LL * Q * 32 + lane;
    const float* tz = trans + z * 8;
    // Lane z+1's BM..II of vector 0 (zero for lane 3): the transitions
    // HMMER left-shifts into the last vector.
    const float* tnext0 = z < 3 ? trans + (z + 1) * 8 : 0;

    for (;;) {
        int b = 0;
        if (lane == 0) b = (int)atomicAdd(next, 1u);
        b = __shfl_sync(FULL, b, 0);
        if (b >= nblocks) return;
        const Block* blk = blocks + b;
        const bool active = g < blk->nseq;
        const int len = active ? blk->len[g] : 0;
        const int seq = active ? blk->seq[g] : 0;
        int lmax = 0;
        for (int k = 0; k < blk->nseq; k++) lmax = max(lmax, blk->len[k]);
        const unsigned char* tres = res + blk->off + g * 4;  // byte p of this target: tres[(p>>2)*32 + (p&3)]
        const float2 lm = active ? loopmove[seq] : make_float2(0.0f, 0.0f);
        const float ploop = lm.x, pmove = lm.y;
        const float* fx = active && len > 0 ? fxrows + xoff[seq] : 0;
        float* bx = active && len > 0 && z == 0 ? bxrows + xoff[seq] : 0;

        // Row L.
        float xJ = 0.0f, xB = 0.0f, xN = 0.0f, xC = pmove;
        float xE = fmul(xC, emove);
        for (int q = 0; q < Q; q++) {
            MI[q * 32] = make_float2(xE, 0.0f);
            D[q * 32] = xE;
        }
        float dpv = from_right(xE, z), dcv = 0.0f;
        for (int q = Q - 1; q >= 0; q--) {
            dcv = fmul(dpv, tz[q * 32 + 7]);
            const float d = fadd(D[q * 32], dcv);
            D[q * 32] = d;
            dpv = d;
        }
        for (int j = 1; j < 4; j++) {
            dcv = from_right(dcv, z);
            for (int q = Q - 1; q >= 0; q--) {
                dcv = fmul(dcv, tz[q * 32 + 7]);
                D[q * 32] = fadd(D[q * 32], dcv);
            }
        }
        dcv = from_right(D[0], z);
        for (int q = Q - 1; q >= 0; q--) {
            MI[q * 32].x = fadd(MI[q * 32].x, fmul(dcv, tz[q * 32 + 4]));
            dcv = D[q * 32];
        }
        float inv = 1.0f;
        {
            const float s = fx != 0 ? fx[6 * len + 5] : 1.0f;
            if (s > 1.0f) {
                xE = fdiv(xE, s);
                xN = fdiv(xN, s);
                xC = fdiv(xC, s);
                xJ = fdiv(xJ, s);
                xB = fdiv(xB, s);
                inv = flush64(1.0 / (double)s);
            }
            if (bx != 0) put_xrow(bx + 6 * len, xE, xN, xJ, xB, xC, s);
        }
        bool own = false;

        for (int step = 1; step <= lmax; step++) {
            const int i = len - step;  // this target's row; below 0 once it is done

            // Row 0: the B paths summed with q ascending.
            if (__any_sync(FULL, i == 0)) {
                const int x0 = min((int)tres[0], KP);
                const float* rp = odds + (long long)x0 * QS * 4 + z;
                float xBv = 0.0f;
                for (int q = 0; q < Q; q++) {
                    float mpv = fmul(fmul(MI[q * 32].x, inv), rp[q * 4]);
                    mpv = fmul(mpv, tz[q * 32]);
                    xBv = fadd(xBv, mpv);
                }
                const float xB0 = hsum4(xBv);
                if (i == 0) {
                    const float xN0 = fadd(fmul(xB0, pmove), fmul(xN, ploop));
                    if (bx != 0) put_xrow(bx, 0.0f, xN0, 0.0f, xB0, 0.0f, 1.0f);
                    if (bx != 0) ownScales[seq] = own ? 1 : 0;
                }
            }
            if (!__any_sync(FULL, i >= 1)) continue;

            // Row i >= 1 (others run along on padding). Phase 1: B(i)
            // collected; complete I(i), partial M(i) and D(i).
            int x = KP;
            if (i >= 1) x = min((int)tres[(i >> 2) * 32 + (i & 3)], KP);  // residue i+1
            const float* rf = odds + (long long)x * QS * 4 + z;
            float tmmv = tnext0 != 0 ? tnext0[1] : 0.0f;
            float timv = tnext0 != 0 ? tnext0[2] : 0.0f;
            float tdmv = tnext0 != 0 ? tnext0[3] : 0.0f;
            float mpv = from_right(fmul(fmul(MI[0].x, inv), rf[0]), z);
            float xBv = 0.0f;
            for (int q = Q - 1; q >= 0; q--) {
                const float4 ta = *(const float4*)(tz + q * 32);      // BM MM IM DM
                const float4 tb = *(const float4*)(tz + q * 32 + 4);  // MD MI II DD
                const float2 mi = MI[q * 32];
                const float ipv = fmul(mi.y, inv);
                const float inew = fadd(fmul(ipv, tb.z), fmul(mpv, timv));
                D[q * 32] = fmul(mpv, tdmv);
                const float mcv = fadd(fmul(ipv, tb.y), fmul(mpv, tmmv));
                mpv = fmul(fmul(mi.x, inv), rf[q * 4]);
                MI[q * 32] = make_float2(mcv, inew);
                tdmv = ta.w;
                timv = ta.z;
                tmmv = ta.y;
                xBv = fadd(xBv, fmul(mpv, ta.x));
            }

            // Phase 2: specials.
            xB = hsum4(xBv);
            xC = fmul(xC, ploop);
            xJ = fadd(fmul(xB, pmove), fmul(xJ, ploop));
            xN = fadd(fmul(xB, pmove), fmul(xN, ploop));
            xE = fadd(fmul(xC, emove), fmul(xJ, eloop));

            // Phase 3: {M,D}->E paths and one D->D pass.
            dpv = from_right(fadd(D[0], xE), z);
            for (int q = Q - 1; q >= 0; q--) {
                dcv = fmul(dpv, tz[q * 32 + 7]);
                const float d = fadd(D[q * 32], fadd(dcv, xE));
                D[q * 32] = d;
                dpv = d;
                MI[q * 32].x = fadd(MI[q * 32].x, xE);
            }
            // Phase 4: three more D->D passes (a sum equal to the old value
            // is not stored: see fwd.cu).
            for (int j = 1; j < 4; j++) {
                dcv = from_right(dcv, z);
                for (int q = Q - 1; q >= 0; q--) {
                    dcv = fmul(dcv, tz[q * 32 + 7]);
                    const float d = D[q * 32];
                    const float s = fadd(d, dcv);
                    if (s != d) D[q * 32] = s;
                }
            }
            // Phase 5: M->D paths.
            dcv = from_right(D[0], z);
            for (int q = Q - 1; q >= 0; q--) {
                MI[q * 32].x = fadd(MI[q * 32].x, fmul(dcv, tz[q * 32 + 4]));
                dcv = D[q * 32];
            }

            // Rescaling: the Forward's factor of the row until B grows
            // past 1e16 (compared in double, as HMMER and fwdback.Backward do), then B itself
            // whenever it exceeds 1e4.
            if ((double)xB > 1.0e16) own = true;
            float s;
            if (own) {
                s = xB > 1.0e4f ? xB : 1.0f;
            } else {
                s = fx != 0 && i >= 1 ? fx[6 * i + 5] : 1.0f;
            }
            inv = 1.0f;
            if (s > 1.0f) {
                xE = fdiv(xE, s);
                xN = fdiv(xN, s);
                xJ = fdiv(xJ, s);
                xB = fdiv(xB, s);
                xC = fdiv(xC, s);
                inv = flush64(1.0 / (double)s);
            }
            if (bx != 0 && i >= 1) put_xrow(bx + 6 * i, xE, xN, xJ, xB, xC, s);
        }
    }
}
