// hmmgo pair-HMM forward kernels (GATK HaplotypeCaller's model), for NVRTC.
//
// Design (after gpuPairHMM): one group of PH_GROUP threads (a warp or a
// sub-warp) computes one read/haplotype pair. Thread t owns PH_ROWS
// consecutive read positions and keeps their DP cells in registers; the
// group sweeps the haplotype as a wavefront: in step k thread t handles
// haplotype column k - t, receiving the last row of thread t-1 through a
// warp shuffle. Emission probabilities come from a per-group table in
// shared memory indexed by haplotype base. The host compiles one module per
// (PH_GROUP, PH_ROWS) and sends each read to the smallest configuration
// that holds it (length binning).
//
// Exactness: every product and sum is an explicitly rounded __fmul_rn /
// __fadd_rn (__dmul_rn / __dadd_rn), so nothing is contracted into FMA,
// and the operations and their order are those of forward() in forward.go
// and of the AVX2 kernel: the raw sums are identical to the bit. Do not
// compile with --ftz=true or --use_fast_math (GATK's double pass relies on
// the float pass being IEEE with subnormals, as on the CPU).
//
// Macros set by the host: PH_GROUP (4, 8, 16 or 32), PH_ROWS (rows per
// thread), PH_BLOCK (threads per block, a multiple of 32).

#ifndef PH_GROUP
#define PH_GROUP 32
#endif
#ifndef PH_ROWS
#define PH_ROWS 8
#endif
#ifndef PH_BLOCK
#define PH_BLOCK 128
#endif

#define PH_MAXLEN (PH_GROUP * PH_ROWS)
#define PH_GROUPS_PER_BLOCK (PH_BLOCK / PH_GROUP)
#define PH_CODE_N 4

typedef unsigned char u8;

__device__ __forceinline__ float ph_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float ph_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float ph_div(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double ph_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double ph_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double ph_div(double a, double b) { return __ddiv_rn(a, b); }

// Per-pair inputs, shared by both precisions (the kernels take them as
// plain parameters, in this order, so the host passes pointers and ints).
struct PairInputs {
	const u8* rbase;   // read base codes 0..4 (A C G T N)
	const u8* rq;      // base qualities
	const u8* ri;      // insertion open qualities
	const u8* rd;      // deletion open qualities
	const u8* rc;      // gap continuation qualities
	const int* roff;   // read start offsets
	const int* rlen;   // read lengths
	const u8* hap;     // haplotype base codes
	const int* hoff;   // haplotype start offsets
	const int* hlen;   // haplotype lengths
	const int* taskRead; // pair task -> read index
	const int* taskHap;  // pair task -> haplotype index
	int ntasks;
};

#define PH_PARAMS const u8* rbase, const u8* rq, const u8* ri, const u8* rd, const u8* rc, \
	const int* roff, const int* rlen, const u8* hap, const int* hoff, const int* hlen, \
	const int* taskRead, const int* taskHap, int ntasks
#define PH_INPUTS PairInputs{rbase, rq, ri, rd, rc, roff, rlen, hap, hoff, hlen, taskRead, taskHap, ntasks}

// matchToMatch table index, GKL's triangular layout.
__device__ __forceinline__ int ph_mm_index(int a, int b) {
	int lo = a < b ? a : b, hi = a < b ? b : a;
	return hi * (hi + 1) / 2 + lo;
}

template <typename T>
__device__ __forceinline__ void ph_forward(const PairInputs& in, const T* __restrict__ ph2pr,
                                           const T* __restrict__ mmTab, T initial, T* __restrict__ out,
                                           T (*emis)[PH_MAXLEN]) {
	const int lane = threadIdx.x % PH_GROUP;
	const int groupInBlock = threadIdx.x / PH_GROUP;
	// Shuffles and syncs involve only this group's lanes: groups sharing a
	// warp run pairs of different lengths and leave the loop at different
	// steps.
	const unsigned groupMask = PH_GROUP == 32 ? 0xffffffffu
		: ((1u << PH_GROUP) - 1u) << ((threadIdx.x % 32) / PH_GROUP * PH_GROUP);
	const int task = blockIdx.x * PH_GROUPS_PER_BLOCK + groupInBlock;
	// Groups of the last block without a task run an empty pair and store
	// nothing.
	const bool live = task < in.ntasks;
	const int rIdx = live ? in.taskRead[task] : 0;
	const int hIdx = live ? in.taskHap[task] : 0;
	const int R = live ? in.rlen[rIdx] : 1;
	const int H = live ? in.hlen[hIdx] : 0;
	const int roff = in.roff[rIdx];
	const u8* __restrict__ hap = in.hap + in.hoff[hIdx];

	// Emission table: emis[c][row] = prior of read base `row` against a
	// haplotype base of code c: 1-e on a match (or N), e/3 otherwise.
	for (int row = lane; row < PH_MAXLEN; row += PH_GROUP) {
		T match = 0, mismatch = 0;
		int rb = PH_CODE_N;
		if (row < R) {
			T e = ph2pr[__ldg(in.rq + roff + row)];
			match = ph_add(T(1), -e); // 1 - e, exactly rounded like the CPU's subtraction
			mismatch = ph_div(e, T(3)); // GATK's tristate correction
			rb = __ldg(in.rbase + roff + row);
		}
		#pragma unroll
		for (int c = 0; c < 5; c++)
			emis[c][row] = (c == rb || rb == PH_CODE_N || c == PH_CODE_N) ? match : mismatch;
	}

	// Transition probabilities of this thread's rows; rows past the read
	// are zero, which keeps their cells zero.
	T mm[PH_ROWS], gapm[PH_ROWS], mx[PH_ROWS], gcp[PH_ROWS], my[PH_ROWS];
	T M[PH_ROWS], X[PH_ROWS], Y[PH_ROWS];
	#pragma unroll
	for (int r = 0; r < PH_ROWS; r++) {
		const int row = lane * PH_ROWS + r;
		mm[r] = gapm[r] = mx[r] = gcp[r] = my[r] = 0;
		if (row < R) {
			const int qi = __ldg(in.ri + roff + row), qd = __ldg(in.rd + roff + row), qc = __ldg(in.rc + roff + row);
			mm[r] = mmTab[ph_mm_index(qi, qd)];
			gcp[r] = ph2pr[qc];
			gapm[r] = ph_add(T(1), -gcp[r]);
			mx[r] = ph2pr[qi];
			my[r] = ph2pr[qd];
		}
		M[r] = X[r] = Y[r] = 0;
	}
	__syncwarp(groupMask);

	const T initY = live ? ph_div(initial, T(H)) : T(0);
	// Row 0 of the DP (above the read): M = X = 0, Y = initial/H everywhere.
	T upM = 0, upX = 0, upY = 0;                 // row above, this column
	T dgM = 0, dgX = 0, dgY = lane == 0 ? initY : T(0); // row above, previous column
	T sumM = 0, sumX = 0;
	const int lastLane = (R - 1) / PH_ROWS, lastReg = (R - 1) % PH_ROWS;
	const int steps = H + lastLane; // the last row's thread finishes column H-1 at step H-1+lastLane
	int code = PH_CODE_N;

	for (int k = 0; k < steps; k++) {
		// Haplotype base of this thread's column, passed down the group.
		int fromAbove = __shfl_up_sync(groupMask, code, 1, PH_GROUP);
		code = lane == 0 ? (k < H ? __ldg(hap + k) : PH_CODE_N) : fromAbove;
		const int j = k - lane;
		if (lane == 0) {
			upM = 0; upX = 0;
			dgM = 0; dgX = 0; dgY = initY;
		}
		if (j >= 0 && j < H && lane <= lastLane) {
			T pM = upM, pX = upX;             // row above, this column
			T qM = dgM, qX = dgX, qY = dgY;   // row above, previous column
			#pragma unroll
			for (int r = 0; r < PH_ROWS; r++) {
				const T oM = M[r], oX = X[r], oY = Y[r]; // this row, previous column
				const T e = emis[code][lane * PH_ROWS + r];
				const T nM = ph_mul(ph_add(ph_add(ph_mul(qM, mm[r]), ph_mul(qX, gapm[r])), ph_mul(qY, gapm[r])), e);
				const T nX = ph_add(ph_mul(pM, mx[r]), ph_mul(pX, gcp[r]));
				const T nY = ph_add(ph_mul(oM, my[r]), ph_mul(oY, gcp[r]));
				M[r] = nM; X[r] = nX; Y[r] = nY;
				pM = nM; pX = nX;
				qM = oM; qX = oX; qY = oY;
				if (r == lastReg && lane == lastLane) {
					sumM = ph_add(sumM, nM);
					sumX = ph_add(sumX, nX);
				}
			}
		}
		// Pass this thread's last row down: next step it is the row above
		// for thread lane+1, and the current "above" becomes its diagonal.
		dgM = upM; dgX = upX; dgY = upY;
		upM = __shfl_up_sync(groupMask, M[PH_ROWS - 1], 1, PH_GROUP);
		upX = __shfl_up_sync(groupMask, X[PH_ROWS - 1], 1, PH_GROUP);
		upY = __shfl_up_sync(groupMask, Y[PH_ROWS - 1], 1, PH_GROUP);
	}
	if (live && lane == lastLane)
		out[task] = ph_add(sumM, sumX);
}

// Kernel parameters: the PH_PARAMS list, then the quality tables of the
// precision (ph2pr[128], matchToMatch[8256], built on the host exactly as
// the CPU builds them), the initial constant (2^120 or 2^1020) and the
// output, one raw sum per task (still multiplied by the initial constant).
extern "C" __global__ void __launch_bounds__(PH_BLOCK)
pairhmm_float(PH_PARAMS, const float* __restrict__ ph2pr, const float* __restrict__ mmTab, float initial,
              float* __restrict__ out) {
	__shared__ float emis[PH_GROUPS_PER_BLOCK][5][PH_MAXLEN];
	ph_forward<float>(PH_INPUTS, ph2pr, mmTab, initial, out, emis[threadIdx.x / PH_GROUP]);
}

extern "C" __global__ void __launch_bounds__(PH_BLOCK)
pairhmm_double(PH_PARAMS, const double* __restrict__ ph2pr, const double* __restrict__ mmTab, double initial,
               double* __restrict__ out) {
	__shared__ double emis[PH_GROUPS_PER_BLOCK][5][PH_MAXLEN];
	ph_forward<double>(PH_INPUTS, ph2pr, mmTab, initial, out, emis[threadIdx.x / PH_GROUP]);
}
