// Envelope rescoring's optimal accuracy traceback on the GPU (fwdback.OATrace),
// after env_decode_kernel (envdecode.cu) has left each envelope's posteriors
// in bmat and Backward's special rows (pp, pp.X) and its optimal accuracy
// matrix in fmat and Forward's special rows (ox, ox.X).
//
// A traceback is one serial walk of at most L + M + 8 steps, a few loads
// each: one thread an envelope, no lane crossings. The thread records each
// step as OATrace hands it to traceAppend (state, node, residue, posterior;
// T first, S last); the host replays them through traceAppend and
// traceReverse, so the trace is built by the CPU's own code. Ties break as
// in HMMER: the comparisons below are OATrace's, operand for operand.
#if ENV_KERNELS

// hits.State's numbers.
#define ST_BOGUS 0
#define ST_M 1
#define ST_D 2
#define ST_I 3
#define ST_S 4
#define ST_N 5
#define ST_B 6
#define ST_E 7
#define ST_C 8
#define ST_T 9
#define ST_J 10

// One step of a trace as OATrace appends it (the host's traceStepBytes).
struct TraceStep {
    int st, k, i;
    float pp;
};

// EnvTrace is what the traceback of one envelope reads.
struct EnvTrace {
    const float* ox;  // OA matrix rows 0..L
    const float* pp;  // posterior matrix rows 1..L
    const float* oxX; // OA special rows
    const float* ppX; // posterior special rows
    const float* tf;
    int Q;
};

// cell is state s of node k in row i of a matrix of the envelope.
__device__ __forceinline__ float cell(const EnvTrace& m, const float* mx, int i, int k, int s)
{
    const int q = (k - 1) % m.Q, r = (k - 1) / m.Q;
    return mx[((long long)i * m.Q + q) * 12 + 4 * s + r];
}

// prev_cell is lane r of the vector feeding vector q of row i, state s:
// vector q-1, or vector Q-1 shifted one lane up with 0 shifted in.
__device__ __forceinline__ float prev_cell(const EnvTrace& m, int i, int q, int r, int s)
{
    const float* row = m.ox + (long long)i * m.Q * 12;
    if (q > 0) return row[12 * (q - 1) + 4 * s + r];
    return r == 0 ? 0.0f : row[12 * (m.Q - 1) + 4 * s + r - 1];
}

// tr is lane r of transition vector t of vector q.
__device__ __forceinline__ float tr_at(const EnvTrace& m, int q, int t, int r) { return m.tf[4 * (7 * q + t) + r]; }

__device__ __forceinline__ float path(float t, float v) { return t == 0.0f ? NEG_INF : v; }

__device__ int oa_select_m(const EnvTrace& m, int i, int k)
{
    const int q = (k - 1) % m.Q, r = (k - 1) / m.Q;
    // Ordered so that ties prefer M, then I, then D, then B.
    const float v[4] = {path(tr_at(m, q, TMM, r), prev_cell(m, i - 1, q, r, 0)),
                        path(tr_at(m, q, TIM, r), prev_cell(m, i - 1, q, r, 2)),
                        path(tr_at(m, q, TDM, r), prev_cell(m, i - 1, q, r, 1)),
                        path(tr_at(m, q, TBM, r), m.oxX[6 * (i - 1) + 3])};
    const int st[4] = {ST_M, ST_I, ST_D, ST_B};
    int best = 0;
    for (int j = 1; j < 4; j++)
        if (v[j] > v[best]) best = j;
    return st[best];
}

__device__ int oa_select_d(const EnvTrace& m, int i, int k)
{
    const int Q = m.Q, q = (k - 1) % Q, r = (k - 1) / Q;
    float tmd, tdd;
    if (q > 0) {
        tmd = tr_at(m, q - 1, TMD, r);
        tdd = m.tf[4 * (7 * Q + q - 1) + r];
    } else {
        tmd = r == 0 ? 0.0f : tr_at(m, Q - 1, TMD, r - 1);
        tdd = r == 0 ? 0.0f : m.tf[4 * (8 * Q - 1) + r - 1];
    }
    const float p0 = path(tmd, prev_cell(m, i, q, r, 0)), p1 = path(tdd, prev_cell(m, i, q, r, 1));
    return p0 >= p1 ? ST_M : ST_D;
}

__device__ int oa_select_i(const EnvTrace& m, int i, int k)
{
    const int q = (k - 1) % m.Q, r = (k - 1) / m.Q;
    const float p0 = path(tr_at(m, q, TMI, r), cell(m, m.ox, i - 1, k, 0));
    const float p1 = path(tr_at(m, q, TII, r), cell(m, m.ox, i - 1, k, 2));
    return p0 >= p1 ? ST_M : ST_I;
}

// oa_select_e scans row i in striped order: among equal M cells the last
// wins, D cells only on strict improvement. The node goes into *k.
__device__ int oa_select_e(const EnvTrace& m, int i, int* k)
{
    const float* row = m.ox + (long long)i * m.Q * 12;
    float best = NEG_INF;
    int s = ST_BOGUS, kk = 0;
    for (int q = 0; q < m.Q; q++) {
        for (int r = 0; r < 4; r++) {
            const float v = row[12 * q + r];
            if (v >= best) best = v, s = ST_M, kk = r * m.Q + q + 1;
        }
        for (int r = 0; r < 4; r++) {
            const float v = row[12 * q + 4 + r];
            if (v > best) best = v, s = ST_D, kk = r * m.Q + q + 1;
        }
    }
    *k = kk;
    return s;
}

// oa_select_special picks a when its path is strictly better; a path of
// transition probability zero is -inf.
__device__ __forceinline__ int oa_select_special(float pa, float va, float pb, float vb, int a, int b)
{
    return path(pa, va) > path(pb, vb) ? a : b;
}

__device__ float postprob(const EnvTrace& m, int scur, int sprv, int k, int i)
{
    switch (scur) {
    case ST_M: return cell(m, m.pp, i, k, 0);
    case ST_I: return cell(m, m.pp, i, k, 2);
    case ST_N: return sprv == scur ? m.ppX[6 * i + 1] : 0.0f;
    case ST_C: return sprv == scur ? m.ppX[6 * i + 4] : 0.0f;
    case ST_J: return sprv == scur ? m.ppX[6 * i + 2] : 0.0f;
    }
    return 0.0f;
}

// env_trace_kernel writes each envelope's steps from steps[trace] on and
// their number into tcount (0 for an envelope without a trace: skipped or
// dropped; -1 where the walk went astray, which the host reports).
extern "C" __global__ void __launch_bounds__(64)
env_trace_kernel(const EnvDesc* __restrict__ desc, int n, int Q, int M, const float* __restrict__ tf,
                 const float2* __restrict__ loopmove, float eloop, float emove, const float* __restrict__ fmat,
                 const float* __restrict__ bmat, const float* __restrict__ fxrows, const float* __restrict__ bxrows,
                 TraceStep* __restrict__ steps, int* __restrict__ tcount, const EnvDecoded* __restrict__ dec)
{
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n) return;
    const EnvDesc d = desc[e];
    if ((d.flags & ENV_SKIP) || dec[e].err) {
        tcount[e] = 0;
        return;
    }
    const EnvTrace m = {fmat + d.mat, bmat + d.mat, fxrows + d.xrow, bxrows + d.xrow, tf, Q};
    const float loop = loopmove[e].x, move = loopmove[e].y;
    const int L = d.L, room = L + M + 8;
    TraceStep* out = steps + d.trace;
    int nst = 0, i = L, k = 0;
    out[nst++] = TraceStep{ST_T, 0, i, 0.0f};
    out[nst++] = TraceStep{ST_C, 0, i, 0.0f};
    int s0 = ST_C;
    while (s0 != ST_S) {
        // A state that would read outside the matrices, or a walk longer
        // than any unihit path, cannot come from OA matrices.
        const bool emits = s0 == ST_M || s0 == ST_I || s0 == ST_C || s0 == ST_J;
        if (nst == room || i < 0 || i > L || (emits && i < 1) || ((s0 == ST_M || s0 == ST_D) && (k < 1 || k > M)) ||
            (s0 == ST_I && (k < 1 || k > M))) {
            tcount[e] = -1;
            return;
        }
        int s1;
        switch (s0) {
        case ST_M:
            s1 = oa_select_m(m, i, k);
            k--;
            i--;
            break;
        case ST_D:
            s1 = oa_select_d(m, i, k);
            k--;
            break;
        case ST_I:
            s1 = oa_select_i(m, i, k);
            i--;
            break;
        case ST_N:
            s1 = i == 0 ? ST_S : ST_N;
            break;
        case ST_C:
            s1 = oa_select_special(loop, fadd(m.oxX[6 * (i - 1) + 4], m.ppX[6 * i + 4]), emove, m.oxX[6 * i], ST_C, ST_E);
            break;
        case ST_J:
            s1 = oa_select_special(loop, fadd(m.oxX[6 * (i - 1) + 2], m.ppX[6 * i + 2]), eloop, m.oxX[6 * i], ST_J, ST_E);
            break;
        case ST_E:
            s1 = oa_select_e(m, i, &k);
            break;
        case ST_B:
            s1 = oa_select_special(move, m.oxX[6 * i + 1], move, m.oxX[6 * i + 2], ST_N, ST_J);
            break;
        default:
            tcount[e] = -1;
            return;
        }
        out[nst++] = TraceStep{s1, k, i, postprob(m, s1, s0, k, i)};
        if ((s1 == ST_N || s1 == ST_J || s1 == ST_C) && s1 == s0) i--;
        s0 = s1;
    }
    tcount[e] = nst;
}

#endif
