// hmmgo pair-HMM forward kernels (GATK HaplotypeCaller's model), for NVRTC.
//
// Design (after gpuPairHMM): one group of PH_GROUP threads (a warp or a
// sub-warp) computes one read/haplotype pair. Thread t owns PH_ROWS
// consecutive DP rows and keeps their cells in registers; the group
// sweeps the haplotype as a wavefront: in step k thread t handles
// haplotype column k - t, receiving the last row of thread t-1 through a
// warp shuffle. Emission probabilities come from a table in shared memory
// indexed by haplotype base. The host compiles one module per (PH_GROUP,
// PH_ROWS) and sends each read to the smallest configuration that holds it
// (length binning).
//
// Row layout: the read occupies the LAST rows of the group's threads, so
// that its last row is always register PH_ROWS-1 of some thread. The
// first s = (-R mod PH_ROWS) rows of thread 0 are "carrier" rows that hand
// the top boundary down unchanged (M = X = 0, Y = initial/H; transitions
// 0 except gcp = 1, so Y' = 0*my + Y*1 = Y exactly), and rows past the
// read have all-zero transitions and emissions, so their cells stay 0.
// Threads that have not reached their first column yet, or have passed
// the last one, compute on zeros or on columns nobody reads; therefore the
// step loop has no per-cell or per-step conditions at all, and the last
// row's sums are accumulated unconditionally (adding +0 before the first
// column changes nothing).
//
// Every global read goes through __ldg (the read-only data path; the
// tests' C++ emulation of this file also bounds-checks them there).
//
// Exactness: every product and sum is an explicitly rounded __fmul_rn /
// __fadd_rn (__dmul_rn / __dadd_rn), so nothing is contracted into FMA,
// and the operations and their order are those of forwardFloat() and
// forward() in forward.go
// and of the CPU kernels: the raw sums are identical to the bit. The host
// compiles with --ftz=true, never with --use_fast_math: the float pass
// flushes subnormal results to zero as GKL's (which sets MXCSR's FTZ bit)
// and the CPU kernels do, by the same rule on sm_90 (tininess after
// rounding); --ftz does not touch double arithmetic.
//
// Macros set by the host: PH_GROUP (4, 8, 16 or 32), PH_ROWS (rows per
// thread), PH_WARPS_F and PH_WARPS_D (warps per block of the float and the
// double kernel, chosen so that the static shared memory fits 48 KiB), and
// the kernel variant (gpuVariants in gpu_source.go): PH_VEC=1 reads the
// emission table 16 bytes at a time (four float or two double rows per
// shared-memory load instead of one: the kernel is bound by instructions
// issued, and these loads are a thirteenth of them), PH_UNROLL=2 (or 4)
// unrolls the wavefront loop twice (four or eight times) (the registers of one step become the next
// one's by renaming rather than moves). Neither changes any arithmetic.

#ifndef PH_GROUP
#define PH_GROUP 32
#endif
#ifndef PH_ROWS
#define PH_ROWS 8
#endif
#ifndef PH_WARPS_F
#define PH_WARPS_F 4
#endif
#ifndef PH_WARPS_D
#define PH_WARPS_D 2
#endif

#ifndef PH_VEC
#define PH_VEC 0
#endif
#ifndef PH_UNROLL
#define PH_UNROLL 1
#endif
#ifndef PH_FUSED
#define PH_FUSED 0
#endif

#define PH_CODE_N 4

// ph_vecw is how many values of a precision one 16-byte load brings;
// the emission table's rows are padded to a multiple of it (PH_VEC=1).
template <typename T>
struct ph_vecw {
	static const int n = PH_VEC ? 16 / (int)sizeof(T) : 1;
	static const int rows = (PH_ROWS + n - 1) / n * n;
};

#ifndef __CUDACC__
// The C++ emulation of this file (tests) has no CUDA vector types.
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) double2 { double x, y; };
#endif

// ph_load16 copies 16 bytes of shared memory (16-byte aligned) into
// registers with one load instruction.
__device__ __forceinline__ void ph_load16(const float* p, float* d) {
	const float4 v = *reinterpret_cast<const float4*>(p);
	d[0] = v.x; d[1] = v.y; d[2] = v.z; d[3] = v.w;
}
__device__ __forceinline__ void ph_load16(const double* p, double* d) {
	const double2 v = *reinterpret_cast<const double2*>(p);
	d[0] = v.x; d[1] = v.y;
}

typedef unsigned char u8;

__device__ __forceinline__ float ph_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ float ph_add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ float ph_div(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double ph_mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double ph_add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double ph_div(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ float ph_fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ double ph_fma(double a, double b, double c) { return __fma_rn(a, b, c); }

// Per-pair inputs, shared by both precisions. Reads are concatenated
// (bases as codes 0..4 and four quality arrays with the same offsets);
// haplotypes are concatenated codes with at least 32 bytes of valid codes
// before the first and after the last, because threads read the base of
// their column without bounds checks (see above).
struct PairInputs {
	const u8* rbase;     // read base codes 0..4 (A C G T N)
	const u8* rq;        // base qualities
	const u8* ri;        // insertion open qualities
	const u8* rd;        // deletion open qualities
	const u8* rc;        // gap continuation qualities
	const int* roff;     // read start offsets
	const int* rlen;     // read lengths
	const u8* hap;       // haplotype base codes
	const int* hoff;     // haplotype start offsets
	const int* hlen;     // haplotype lengths
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

// ph_forward computes one pair per group of PH_GROUP threads. emis is this
// warp's emission table, emis[code][row register / W][lane of warp][W]
// with W = ph_vecw<T>::n values of consecutive rows side by side (W = 1:
// emis[code][row][lane]): every thread reads and writes only its own
// lane's entries, so the table needs no synchronisation, and each quarter
// (W = 4) or half (W = 2) warp's 16-byte loads cover all 32 banks once.
template <typename T, int WARPS>
__device__ __forceinline__ void ph_forward(const PairInputs& in, const T* __restrict__ ph2pr,
                                           const T* __restrict__ mmTab, T initial, T* __restrict__ out,
                                           T (*emis)[ph_vecw<T>::rows * 32]) {
	const int W = ph_vecw<T>::n;
	const int lane = threadIdx.x % PH_GROUP;
	const int warpLane = threadIdx.x % 32;
	const int groupInBlock = threadIdx.x / PH_GROUP;
	// Shuffles involve only this group's lanes: groups sharing a warp run
	// pairs of different lengths and leave the loop at different steps.
	const unsigned groupMask = (0xffffffffu >> (32 - PH_GROUP)) << (warpLane / PH_GROUP * PH_GROUP);
	const int task = blockIdx.x * (WARPS * 32 / PH_GROUP) + groupInBlock;
	// Groups of the last block without a task skip the loop and store
	// nothing; their reads of pair 0's inputs are harmless.
	const bool live = task < in.ntasks;
	const int rIdx = live ? __ldg(in.taskRead + task) : 0;
	const int hIdx = live ? __ldg(in.taskHap + task) : 0;
	const int R = __ldg(in.rlen + rIdx);
	const int H = __ldg(in.hlen + hIdx);
	const int roff = __ldg(in.roff + rIdx);
	const int shift = (PH_ROWS - R % PH_ROWS) % PH_ROWS; // carrier rows above the read
	const int lastLane = (R + shift) / PH_ROWS - 1;
	const T initY = ph_div(initial, T(H));

	// Transition probabilities, emission table and initial cells of this
	// thread's rows.
	T mm[PH_ROWS], gapm[PH_ROWS], mx[PH_ROWS], gcp[PH_ROWS], my[PH_ROWS];
	T M[PH_ROWS], X[PH_ROWS], Y[PH_ROWS];
	#pragma unroll
	for (int r = 0; r < PH_ROWS; r++) {
		const int row = lane * PH_ROWS + r - shift; // read position, when 0 <= row < R
		T match = 0, mismatch = 0;
		int rb = PH_CODE_N;
		mm[r] = gapm[r] = mx[r] = gcp[r] = my[r] = 0;
		M[r] = X[r] = Y[r] = 0;
		if (row < 0) { // carrier row
			gcp[r] = 1;
			Y[r] = initY;
		} else if (row < R) {
			const int qi = __ldg(in.ri + roff + row), qd = __ldg(in.rd + roff + row), qc = __ldg(in.rc + roff + row);
			mm[r] = __ldg(mmTab + ph_mm_index(qi, qd));
			gcp[r] = __ldg(ph2pr + qc);
			gapm[r] = ph_add(T(1), -gcp[r]); // 1 - gcp, rounded like the CPU's subtraction
			mx[r] = __ldg(ph2pr + qi);
			my[r] = __ldg(ph2pr + qd);
			const T e = __ldg(ph2pr + __ldg(in.rq + roff + row));
			match = ph_add(T(1), -e);
			mismatch = ph_div(e, T(3)); // GATK's tristate correction
			rb = __ldg(in.rbase + roff + row);
		}
		#pragma unroll
		for (int c = 0; c < 5; c++)
			emis[c][(r / W * 32 + warpLane) * W + r % W] = row < 0 || row >= R ? T(0)
				: (c == rb || rb == PH_CODE_N || c == PH_CODE_N) ? match : mismatch;
	}

	// The row above this thread's first row: the virtual top row (M = X = 0,
	// Y = initial/H) for thread 0, else thread lane-1's last row. up* is
	// the current column, dg* the previous one.
	T upM = 0, upX = 0, upY = lane == 0 ? initY : T(0);
	T dgM = upM, dgX = upX, dgY = upY;
	T sumM = 0, sumX = 0;
	// The last row's thread finishes column H-1 at step H-1+lastLane.
	const int steps = live ? H + lastLane : 0;
	// Base of this thread's column k - lane, one step ahead.
	const u8* __restrict__ hcol = in.hap + __ldg(in.hoff + hIdx) - lane;
	int code = __ldg(hcol);

#if PH_UNROLL == 2
	#pragma unroll 2
#elif PH_UNROLL == 4
	#pragma unroll 4
#elif PH_UNROLL == 8
	#pragma unroll 8
#endif
	for (int k = 0; k < steps; k++) {
		const int nextCode = __ldg(hcol + k + 1);
		const T* __restrict__ e = &emis[code][warpLane * W];
		T ev[W]; // emissions of rows r - r % W .. r - r % W + W - 1
		T pM = upM, pX = upX;           // row above, this column
		T qM = dgM, qX = dgX, qY = dgY; // row above, previous column
		#pragma unroll
		for (int r = 0; r < PH_ROWS; r++) {
			if (r % W == 0) {
#if PH_VEC
				ph_load16(e + r * 32, ev);
#else
				ev[0] = e[r * 32];
#endif
			}
			const T oM = M[r], oX = X[r], oY = Y[r]; // this row, previous column
#if PH_FUSED
			const T nM = ph_mul(ph_fma(ph_add(qX, qY), gapm[r], ph_mul(qM, mm[r])), ev[r % W]);
			const T nX = ph_fma(pM, mx[r], ph_mul(pX, gcp[r]));
			const T nY = ph_fma(oM, my[r], ph_mul(oY, gcp[r]));
#else
			const T nM = ph_mul(ph_add(ph_add(ph_mul(qM, mm[r]), ph_mul(qX, gapm[r])), ph_mul(qY, gapm[r])), ev[r % W]);
			const T nX = ph_add(ph_mul(pM, mx[r]), ph_mul(pX, gcp[r]));
			const T nY = ph_add(ph_mul(oM, my[r]), ph_mul(oY, gcp[r]));
#endif
			M[r] = nM; X[r] = nX; Y[r] = nY;
			pM = nM; pX = nX;
			qM = oM; qX = oX; qY = oY;
		}
		// Meaningful in thread lastLane only, where register PH_ROWS-1 is
		// the read's last row: all M left to right, all X left to right.
		sumM = ph_add(sumM, M[PH_ROWS - 1]);
		sumX = ph_add(sumX, X[PH_ROWS - 1]);
		// Pass this thread's last row down: next step it is the row above
		// for thread lane+1, and the current "above" becomes its diagonal.
		dgM = upM; dgX = upX; dgY = upY;
		upM = __shfl_up_sync(groupMask, M[PH_ROWS - 1], 1, PH_GROUP);
		upX = __shfl_up_sync(groupMask, X[PH_ROWS - 1], 1, PH_GROUP);
		upY = __shfl_up_sync(groupMask, Y[PH_ROWS - 1], 1, PH_GROUP);
		if (lane == 0) {
			upM = 0; upX = 0; upY = initY;
		}
		code = nextCode;
	}
	if (live && lane == lastLane)
		out[task] = ph_add(sumM, sumX);
}

// Kernel parameters: the PH_PARAMS list, then the quality tables of the
// precision (ph2pr[128], matchToMatch[8256], built on the host exactly as
// the CPU builds them), the initial constant (2^120 or 2^1020) and the
// output, one raw sum per task (still multiplied by the initial constant).
extern "C" __global__ void __launch_bounds__(PH_WARPS_F * 32)
pairhmm_float(PH_PARAMS, const float* __restrict__ ph2pr, const float* __restrict__ mmTab, float initial,
              float* __restrict__ out) {
	alignas(16) __shared__ float emis[PH_WARPS_F][5][ph_vecw<float>::rows * 32];
	ph_forward<float, PH_WARPS_F>(PH_INPUTS, ph2pr, mmTab, initial, out, emis[threadIdx.x / 32]);
}

extern "C" __global__ void __launch_bounds__(PH_WARPS_D * 32)
pairhmm_double(PH_PARAMS, const double* __restrict__ ph2pr, const double* __restrict__ mmTab, double initial,
               double* __restrict__ out) {
	alignas(16) __shared__ double emis[PH_WARPS_D][5][ph_vecw<double>::rows * 32];
	ph_forward<double, PH_WARPS_D>(PH_INPUTS, ph2pr, mmTab, initial, out, emis[threadIdx.x / 32]);
}
