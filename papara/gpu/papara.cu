// hmmgo PaPaRa scoring kernels, compiled at run time by NVRTC (no headers).
//
// Work: a unit is a block of the shared queue, up to 32 consecutive
// branches against a range of reads. Branches go across threads, reads
// across CUDA blocks: a group of PP_G threads scores one read against one
// branch pair (16-bit modes) or one branch (32-bit modes). Grid y is the
// unit; grid x runs over its reads (PP_RB per block) and, when a block
// holds fewer groups than the unit has lanes, over parts of the unit.
//
// Rows in registers: thread t of a group keeps PP_R consecutive DP rows
// (read residues). The group sweeps the reference columns as a wavefront:
// at step k thread t computes column k - t, taking the last row of thread
// t-1 for that column (its score and gap-from-above score) through a warp
// shuffle; each column's branch data is one load. The host compiles one
// module per (mode, PP_G, PP_R) and sends a read to the smallest (PP_G,
// PP_R) that holds it (read length bins), so the loop over a thread's rows
// is fully unrolled and every per-row value lives in a register.
//
// Recurrence (PaPaRa 2.5, maximised, free end gaps on both sequences):
//   sl = max(left + o, sl_left + e)        o, e = 0 in CGAP lanes
//   su = max(up + open, su_up + ext)
//   v  = max(diag + m, sl, su)             m = match increment of the lane
// score = max over the last row and the last column. Modes:
//
//   PP_TABLE    16-bit lanes, two branches per 32-bit word, one Hopper DPX
//               instruction per two cells per max(a + b, c). The column word
//               (uint4) holds the match increments of both branches for the
//               job's four most common residues as bytes (x: branch 0, y:
//               branch 1) and the packed o, e; a row's increments come out of
//               one byte permute (prmt) with a per-row selector that also
//               sign-extends each byte to 16 bits.
//   PP_PROFILE  the same, increments loaded per cell from a profile of
//               K residue rows (any residue alphabet: IUPAC reads, protein).
//   PP_WIDE     32-bit, one branch per group, PaPaRa's rule for any scores
//               (a lane's o, e are waived where its increment is negative),
//               increments computed from the parsimony state bits.
//   PP_PAPER    Equation 1 of the 2012 paper, minimised, 32-bit.
//
// 16-bit exactness. The host sends a read to the 16-bit modes only when
// every value stays far inside int16 (PaPaRa's fast conditions: match >= 0,
// match_cgap < 0, match + match_cgap < 0, gaps <= 0, all scores >= -1000,
// match x length + 32 |ext| <= 32000). Then every cell score is >= 0 (a
// CGAP column never lowers a row, another adds m >= 0 to a score >= 0) and
// the DPX additions, which wrap rather than saturate, never wrap; so
// max(.., 0) (the _relu forms) changes no cell. The gap from above is kept
// as U = su - (r+1) ext for row r of a thread (PP_OPEN and PP_EXT are
// compile-time constants): U(r) = max(v(r-1) + open - (r+1) ext, U(r-1))
// and v = max(U(r) + (r+1) ext, diag + m, sl), one DPX instruction each
// with the constants as immediates; U <= su + 32 |ext| is what the
// 32 |ext| above bounds. The read occupies the LAST rows of the
// group; the rows above it get a selector whose bytes are all sign copies
// (increment 0 or -1), so with relu they stay exactly 0, as row -1 of the
// DP is, and hand the top border down unchanged (su = open below them, as
// below row -1). Its last row is therefore always register PP_R-1 of
// thread PP_G-1, with no per-cell condition.
//
// 32-bit modes keep the read in the FIRST rows (their rows may be
// negative or grow with positive gap scores, so dummy rows could not stay
// neutral) and pick the last row with a compare per cell; they are the
// rare paths.
//
// Result: per read, the best (score, branch) over the launch as one 64-bit
// key, atomicMax'ed: score biased to unsigned in the high word, the
// complement of the branch in the low word, so the maximum key is the best
// score with ties going to the lowest branch, PaPaRa's rule.

typedef unsigned int u32;
typedef unsigned long long u64;

#ifndef PP_MODE
#define PP_MODE 0
#endif
#ifndef PP_G
#define PP_G 4
#endif
#ifndef PP_R
#define PP_R 32
#endif

#define PP_TABLE 0
#define PP_PROFILE 1
#define PP_WIDE 2
#define PP_PAPER 3

#define PP_BLOCK 128
#if PP_MODE == PP_TABLE || PP_MODE == PP_PROFILE
#define PP_LANES 16 // branch pairs per unit
#else
#define PP_LANES 32 // branches per unit
#endif
#define PP_GROUPS (PP_BLOCK / PP_G)
#define PP_PB (PP_GROUPS < PP_LANES ? PP_GROUPS : PP_LANES) // groups per read in a block
#define PP_RB (PP_GROUPS / PP_PB)                           // reads per block
#define PP_SPLIT (PP_LANES / PP_PB)                         // blocks per read of a unit

#define PP_SEED2 0xC180C180u // -16000 in both halves: never wins, never wraps
#ifndef PP_OPEN
#define PP_OPEN -3 // the 16-bit modes' gap scores are compile-time constants
#endif
#ifndef PP_EXT
#define PP_EXT -1
#endif
// a 16-bit value in both halves of a word, folded to an immediate
#define PP_PAIR(v) ((((u32)(v)) & 0xffffu) * 0x10001u)
#define PP_SMALL32 (-2100000000)
#define PP_PAPER_INF (1 << 29)
#define PP_INT_MIN (-2147483647 - 1)
#define PP_INT_MAX 2147483647

#ifndef PP_EMULATED
__device__ __forceinline__ u32 pp_perm(u32 a, u32 b, u32 sel) {
	u32 d;
	asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
	return d;
}
#endif

// The lanes of this thread's group, for the shuffles.
__device__ __forceinline__ u32 pp_group_mask() {
#if PP_G == 32
	return 0xffffffffu;
#else
	return ((1u << PP_G) - 1u) << ((threadIdx.x & 31u) & ~(u32)(PP_G - 1));
#endif
}

__device__ __forceinline__ u64 pp_key(int score, int branch) {
	return ((u64)((u32)score ^ 0x80000000u) << 32) | (u64)(~(u32)branch);
}

// cols: PP_TABLE uint4 [L][width pairs]; PP_PROFILE u32 [L][K+3][width
// pairs] (K residue rows, a zero row, o, e); PP_WIDE and PP_PAPER u32
// [L][width branches] (state | CGAP << 31). seqs/seqOff/seqLen: the job's
// reads as c-states. order: read indices; units: {first branch, branches,
// offset into order, reads}; a unit spans at most 32 branches, counted
// from the even branch at or below its first in the 16-bit modes. kinds maps a c-state to its selector index
// (PP_TABLE), profile row (PP_PROFILE) or parsimony state (32-bit modes).
extern "C" __global__ void __launch_bounds__(PP_BLOCK)
papara_score(const void* __restrict__ cols, const unsigned char* __restrict__ seqs,
             const int* __restrict__ seqOff, const int* __restrict__ seqLen,
             const int* __restrict__ order, const int4* __restrict__ units,
             const u32* __restrict__ kinds, int L, int width, int K,
             int open, int ext, int match, int mcg, u64* __restrict__ best)
{
	const int t = threadIdx.x % PP_G;
	const int g = threadIdx.x / PP_G;
	const int4 u = __ldg(&units[blockIdx.y]);
	const int slot = (blockIdx.x / PP_SPLIT) * PP_RB + g / PP_PB;
	if (slot >= u.w) return;                                // whole groups leave together
	const int li = (blockIdx.x % PP_SPLIT) * PP_PB + g % PP_PB; // lane of the unit
	const int q = __ldg(&order[u.z + slot]);
	const unsigned char* s = seqs + __ldg(&seqOff[q]);
	const int n = __ldg(&seqLen[q]);
	const u32 mask = pp_group_mask();

#if PP_MODE == PP_TABLE || PP_MODE == PP_PROFILE
	const int base = u.x & ~1, end = u.x + u.y; // pairs start at even branches
	if (base + 2 * li >= end) return;          // no branch of the unit in this pair
	const int pair = (base >> 1) + li;
	const int pad = PP_G * PP_R - n; // neutral rows above the read
	u32 H[PP_R], S[PP_R], sel[PP_R];
#pragma unroll
	for (int r = 0; r < PP_R; r++) {
		const int i = t * PP_R + r - pad;
#if PP_MODE == PP_TABLE
		// bytes: lo = branch 0 (k), its sign (k|8), hi = branch 1 (4+k), its sign
		sel[r] = i < 0 ? 0x8888u : 0xC480u + 0x1111u * __ldg(&kinds[__ldg(&s[i])]);
#else
		sel[r] = (u32)((i < 0 ? K : (int)__ldg(&kinds[__ldg(&s[i])])) * width);
#endif
		H[r] = 0;
		S[r] = PP_SEED2;
	}
	u32 passH = 0, passU = PP_SEED2, diagIn = 0, rowBest = 0;
#if PP_MODE == PP_TABLE
	// Each step loads the next step's column word, so that the load's
	// latency hides behind a whole column of cells.
	const uint4* colp = (const uint4*)cols + pair;
	uint4 next = make_uint4(0, 0, 0, 0);
	if (t == 0) next = __ldg(colp);
#endif
	for (int k = 0; k < L + PP_G - 1; k++) {
		u32 inH = __shfl_up_sync(mask, passH, 1, PP_G);
		u32 inU = __shfl_up_sync(mask, passU, 1, PP_G);
		if (t == 0) {
			inH = 0; // row -1
			inU = PP_SEED2;
		}
		const int c = k - t;
#if PP_MODE == PP_TABLE
		const uint4 col = next;
		if (c + 1 >= 0 && c + 1 < L) next = __ldg(colp + (long long)(c + 1) * width);
#endif
		if (c >= 0 && c < L) {
#if PP_MODE == PP_TABLE
			const u32 o2 = col.z, e2 = col.w;
#else
			const u32* col = (const u32*)cols + (long long)c * (K + 3) * width + pair;
			const u32 o2 = __ldg(col + (K + 1) * width), e2 = __ldg(col + (K + 2) * width);
#endif
			// U = su - (r+1) ext: one DPX op per row for the column's gap
			// from above, the per-row constants folded into immediates.
			u32 up = inH, U = inU, diag = diagIn;
#pragma unroll
			for (int r = 0; r < PP_R; r++) {
#if PP_MODE == PP_TABLE
				const u32 m = pp_perm(col.x, col.y, sel[r]);
#else
				const u32 m = __ldg(col + sel[r]);
#endif
				const u32 sl = __viaddmax_s16x2(H[r], o2, __vadd2(S[r], e2));
				U = __viaddmax_s16x2(up, PP_PAIR(PP_OPEN - (r + 1) * PP_EXT), U);
				// relu on the inner max: the outer one takes an immediate only without it
				const u32 v = __viaddmax_s16x2(U, PP_PAIR((r + 1) * PP_EXT), __viaddmax_s16x2_relu(diag, m, sl));
				diag = H[r];
				H[r] = v;
				S[r] = sl;
				up = v;
			}
			diagIn = inH;
			passH = up;
			passU = __vadd2(U, PP_PAIR(PP_R * PP_EXT)); // su of the last row
			rowBest = __vimax_s16x2_relu(rowBest, up); // used by the last thread only
		}
	}
	// last column (rows above the read are 0, below every score) and last row
	u32 cand = 0;
#pragma unroll
	for (int r = 0; r < PP_R; r++) cand = __vimax_s16x2_relu(cand, H[r]);
	if (t == PP_G - 1) cand = __vimax_s16x2_relu(cand, rowBest);
#pragma unroll
	for (int o = PP_G / 2; o > 0; o >>= 1) cand = __vimax_s16x2_relu(cand, __shfl_xor_sync(mask, cand, o, PP_G));
	if (t == 0) {
		const int b = base + 2 * li;
		u64 key = b >= u.x ? pp_key((int)(short)(cand & 0xffffu), b) : 0;
		if (b + 1 < end) {
			const u64 k1 = pp_key((int)(short)(cand >> 16), b + 1);
			key = k1 > key ? k1 : key;
		}
		atomicMax(best + q, key);
	}

#else // 32-bit modes
	if (li >= u.y) return;
	const int br = u.x + li;
	const int lastR = n - 1 - t * PP_R; // register of the read's last row, if this thread's
	int H[PP_R], S[PP_R];
	u32 km[PP_R];
#pragma unroll
	for (int r = 0; r < PP_R; r++) {
		const int i = t * PP_R + r;
		km[r] = i < n ? __ldg(&kinds[__ldg(&s[i])]) : 0u;
#if PP_MODE == PP_WIDE
		H[r] = 0; // column -1: free start
		S[r] = PP_SMALL32;
#else
		H[r] = 3 * (i + 1); // S(j, -1) = 3(j+1): the read is aligned whole
		S[r] = PP_PAPER_INF;
#endif
	}
	int passH = 0;
#if PP_MODE == PP_WIDE
	int passU = PP_SMALL32, diagIn = 0, rowBest = PP_INT_MIN;
#else
	int diagIn = 3 * t * PP_R, rowBest = PP_INT_MAX; // S(tR-1, -1)
#endif
	const u32* colp = (const u32*)cols + br;
	u32 next = t == 0 ? __ldg(colp) : 0u; // the next step's column word, loaded a step ahead
	for (int k = 0; k < L + PP_G - 1; k++) {
		int inH = __shfl_up_sync(mask, passH, 1, PP_G);
#if PP_MODE == PP_WIDE
		int inU = __shfl_up_sync(mask, passU, 1, PP_G);
		if (t == 0) inU = PP_SMALL32;
#endif
		if (t == 0) inH = 0; // row -1 (both schemes)
		const int c = k - t;
		const u32 w = next;
		if (c + 1 >= 0 && c + 1 < L) next = __ldg(colp + (long long)(c + 1) * width);
		if (c >= 0 && c < L) {
			const u32 st = w & 0x7fffffffu;
			const bool cg = (w >> 31) != 0;
			int up = inH, diag = diagIn;
#if PP_MODE == PP_WIDE
			const int mMiss = cg ? mcg : 0, mHit = match + mMiss;
			int su = inU;
#pragma unroll
			for (int r = 0; r < PP_R; r++) {
				const int m = (st & km[r]) != 0 ? mHit : mMiss;
				const int o = m < 0 ? 0 : open, e = m < 0 ? 0 : ext;
				const int sl = max(H[r] + o, S[r] + e);
				su = max(up + open, su + ext);
				const int v = max(diag + m, max(sl, su));
				if (r == lastR) rowBest = max(rowBest, v);
				diag = H[r];
				H[r] = v;
				S[r] = sl;
				up = v;
			}
			passU = su;
#else
			const int cMiss = cg ? 6 : 3, cHit = cg ? 3 : 0, gpoe = cg ? 0 : 4, gpe = cg ? 0 : 1;
#pragma unroll
			for (int r = 0; r < PP_R; r++) {
				const int m = (st & km[r]) != 0 ? cHit : cMiss;
				const int dv = min(H[r] + gpoe, S[r] + gpe);
				const int v = min(diag + m, min(dv, up + 3));
				if (r == lastR) rowBest = min(rowBest, v);
				diag = H[r];
				H[r] = v;
				S[r] = dv;
				up = v;
			}
#endif
			diagIn = inH;
			passH = up;
		}
	}
	int cand = rowBest;
#if PP_MODE == PP_WIDE
#pragma unroll
	for (int r = 0; r < PP_R; r++)
		if (t * PP_R + r < n) cand = max(cand, H[r]); // last column
#pragma unroll
	for (int o = PP_G / 2; o > 0; o >>= 1) cand = max(cand, __shfl_xor_sync(mask, cand, o, PP_G));
#else
#pragma unroll
	for (int o = PP_G / 2; o > 0; o >>= 1) cand = min(cand, __shfl_xor_sync(mask, cand, o, PP_G));
	cand = -cand; // "higher is better" for the key, as the CPU offers it
#endif
	if (t == 0) atomicMax(best + q, pp_key(cand, br));
#endif
}
