#include <xmmintrin.h>
// Runs one launch of a pairhmm.cu kernel on the CPU (see emu.h). The test
// generates kernels.inc, which includes pairhmm.cu once per configuration
// with the host's -D options and lists the kernels in emu_kernels[].
//
// stdin: int32 precision (0 float, 1 double), group, rows, grid, block,
// nargs; then per argument an int32 kind (0 pointer, 1 int, 2 float,
// 3 double) and its value; a pointer is an int64 length and that many
// bytes (the buffer from the pointer to its end). stdout: the bytes of the
// last argument (the output) after the kernel ran.
#include "emu.h"

#include <cstdio>
#include <cstdlib>
#include <ucontext.h>
#include <vector>

emu_uint3 threadIdx, blockIdx;

typedef unsigned char u8;
typedef void (*KernelF)(const u8*, const u8*, const u8*, const u8*, const u8*, const int*, const int*, const u8*,
                        const int*, const int*, const int*, const int*, int, const float*, const float*, float, float*);
typedef void (*KernelD)(const u8*, const u8*, const u8*, const u8*, const u8*, const int*, const int*, const u8*,
                        const int*, const int*, const int*, const int*, int, const double*, const double*, double,
                        double*);
struct EmuKernel {
	int group, rows;
	KernelF f;
	KernelD d;
};

#include "kernels.inc"

static void fail(const char* msg) {
	fprintf(stderr, "emu: %s\n", msg);
	exit(3);
}

// Global memory: the pointer arguments.
struct Range {
	const char *lo, *hi;
};
static std::vector<Range> ranges;

void emu_check(const void* p, size_t n) {
	const char* c = (const char*)p;
	for (const Range& r : ranges)
		if (c >= r.lo && c + n <= r.hi) return;
	fprintf(stderr, "emu: thread %u of block %u reads %zu bytes outside every argument\n", threadIdx.x, blockIdx.x, n);
	exit(4);
}

// Coroutines of one group of threads.
struct Lane {
	ucontext_t ctx;
	std::vector<char> stack;
	bool done, waiting;
	uint64_t slot;
};
static ucontext_t sched;
static std::vector<Lane> lanes;
static int cur, groupSize, groupBase;
static uint64_t snap[32];
static void (*body)();

static void laneEntry() {
	body();
	lanes[cur].done = true;
	swapcontext(&lanes[cur].ctx, &sched);
}

uint64_t emu_shfl_up(unsigned mask, uint64_t v, unsigned delta, int width) {
	unsigned want = groupSize == 32 ? 0xffffffffu : ((1u << groupSize) - 1u) << (groupBase % 32);
	if (mask != want || width != groupSize) fail("shuffle mask or width does not match the thread group");
	int me = cur;
	lanes[me].slot = v;
	lanes[me].waiting = true;
	swapcontext(&lanes[me].ctx, &sched);
	return (unsigned)me % (unsigned)width >= delta ? snap[me - delta] : snap[me];
}

// Kernel call with its arguments, set before each group runs.
static EmuKernel* kern;
static int isDouble;
static std::vector<std::vector<char>> mem;
static std::vector<int> kinds;
static std::vector<int32_t> ints;
static std::vector<double> fps;

template <class T>
static T* P(int i) { return (T*)mem[i].data(); }

static void callKernel() {
	if (!isDouble)
		kern->f(P<u8>(0), P<u8>(1), P<u8>(2), P<u8>(3), P<u8>(4), P<int>(5), P<int>(6), P<u8>(7), P<int>(8), P<int>(9),
		        P<int>(10), P<int>(11), ints[12], P<float>(13), P<float>(14), (float)fps[15], P<float>(16));
	else
		kern->d(P<u8>(0), P<u8>(1), P<u8>(2), P<u8>(3), P<u8>(4), P<int>(5), P<int>(6), P<u8>(7), P<int>(8), P<int>(9),
		        P<int>(10), P<int>(11), ints[12], P<double>(13), P<double>(14), fps[15], P<double>(16));
}

static void runGroup(int base) {
	groupBase = base;
	lanes.assign(groupSize, Lane{});
	for (int l = 0; l < groupSize; l++) {
		Lane& ln = lanes[l];
		ln.stack.resize(1 << 18);
		getcontext(&ln.ctx);
		ln.ctx.uc_stack.ss_sp = ln.stack.data();
		ln.ctx.uc_stack.ss_size = ln.stack.size();
		ln.ctx.uc_link = nullptr;
		makecontext(&ln.ctx, laneEntry, 0);
	}
	for (;;) {
		int done = 0, waiting = 0;
		for (int l = 0; l < groupSize; l++) {
			if (lanes[l].done) continue;
			cur = l;
			threadIdx.x = base + l;
			swapcontext(&sched, &lanes[l].ctx);
		}
		for (int l = 0; l < groupSize; l++) {
			done += lanes[l].done;
			waiting += lanes[l].waiting;
			snap[l] = lanes[l].slot;
			lanes[l].waiting = false;
		}
		if (done == groupSize) return;
		if (waiting != groupSize) fail("threads of one group diverged around a shuffle");
	}
}

static void readAll(void* p, size_t n) {
	if (fread(p, 1, n, stdin) != n) fail("short input");
}

int main() {
	int32_t hdr[6];
	readAll(hdr, sizeof hdr);
	isDouble = hdr[0];
	// The float kernel runs with --ftz=true: the host's SSE arithmetic
	// flushes the same way with MXCSR's FTZ bit (which would also flush
	// doubles, so the double kernel runs without it).
	if (!isDouble) _mm_setcsr(_mm_getcsr() | 0x8000);
	int group = hdr[1], rows = hdr[2], grid = hdr[3], block = hdr[4], nargs = hdr[5];
	if (nargs != 17) fail("want 17 arguments");
	for (EmuKernel* k = emu_kernels; k->group; k++)
		if (k->group == group && k->rows == rows) kern = k;
	if (!kern) fail("no such configuration");
	mem.resize(nargs);
	kinds.resize(nargs);
	ints.resize(nargs);
	fps.resize(nargs);
	for (int i = 0; i < nargs; i++) {
		int32_t kind;
		readAll(&kind, 4);
		kinds[i] = kind;
		if (kind == 0) {
			int64_t n;
			readAll(&n, 8);
			mem[i].resize(n);
			readAll(mem[i].data(), n);
			ranges.push_back(Range{mem[i].data(), mem[i].data() + n});
		} else if (kind == 1) {
			readAll(&ints[i], 4);
		} else if (kind == 2) {
			float f;
			readAll(&f, 4);
			fps[i] = f;
		} else {
			readAll(&fps[i], 8);
		}
	}
	if (kinds[12] != 1 || kinds[15] != 2 + isDouble) fail("argument kinds do not match the kernel");
	groupSize = group;
	body = callKernel;
	for (int b = 0; b < grid; b++) {
		blockIdx.x = b;
		for (int base = 0; base < block; base += group) runGroup(base);
	}
	fwrite(mem[nargs - 1].data(), 1, mem[nargs - 1].size(), stdout);
	return 0;
}
