// Runs one launch of papara_score (papara.cu) on the CPU; see emu.h. The
// test writes kernels.inc, which includes papara.cu once per configuration
// (mode, group, rows) with the host's -D options and lists them in
// emu_kernels[].
//
// stdin: int32 configuration index, grid x, grid y; then the 15 kernel
// arguments in order, each an int32 kind (0 pointer, 1 int) and its value:
// a pointer is an int64 length and that many bytes. stdout: the bytes of
// the last argument (the best keys) after the launch.
#include "emu.h"

#include <cstdio>
#include <cstdlib>
#include <ucontext.h>
#include <vector>

emu_dim3 threadIdx, blockIdx;

typedef void (*Kernel)(const void*, const unsigned char*, const int*, const int*, const int*, const int4*,
                       const unsigned*, int, int, int, int, int, int, int, unsigned long long*);
struct EmuKernel {
	int group;
	Kernel f;
};

#include "kernels.inc"

static void fail(const char* msg) {
	fprintf(stderr, "emu: %s\n", msg);
	exit(3);
}

struct Range {
	const char *lo, *hi;
};
static std::vector<Range> ranges;

void emu_check(const void* p, size_t n) {
	const char* c = (const char*)p;
	for (const Range& r : ranges)
		if (c >= r.lo && c + n <= r.hi) return;
	fprintf(stderr, "emu: thread %u of block (%u, %u) reads %zu bytes outside every argument\n", threadIdx.x,
	        blockIdx.x, blockIdx.y, n);
	exit(4);
}

// The coroutines of one group of threads.
struct Lane {
	ucontext_t ctx;
	std::vector<char> stack;
	bool done, waiting;
	uint32_t slot;
	int op;
	unsigned delta;
};
static ucontext_t sched;
static std::vector<Lane> lanes;
static int cur, groupSize, groupBase;
static uint32_t snap[32];
static void (*body)();

static void laneEntry() {
	body();
	lanes[cur].done = true;
	swapcontext(&lanes[cur].ctx, &sched);
}

uint32_t emu_shuffle(unsigned mask, uint32_t v, int op, unsigned delta, int width) {
	unsigned want = groupSize == 32 ? 0xffffffffu : ((1u << groupSize) - 1u) << (groupBase % 32);
	if (mask != want || width != groupSize) fail("shuffle mask or width does not match the thread group");
	if (groupSize == 1) return v;
	int me = cur;
	lanes[me].slot = v;
	lanes[me].op = op;
	lanes[me].delta = delta;
	lanes[me].waiting = true;
	swapcontext(&lanes[me].ctx, &sched);
	int src = me;
	if (op == 0) {
		if ((unsigned)me >= delta) src = me - (int)delta;
	} else {
		src = me ^ (int)delta;
	}
	return snap[src];
}

static Kernel kern;
static std::vector<std::vector<char>> mem;
static std::vector<int32_t> ints;

template <class T>
static T* P(int i) { return (T*)mem[i].data(); }

static void callKernel() {
	kern(P<void>(0), P<unsigned char>(1), P<int>(2), P<int>(3), P<int>(4), P<int4>(5), P<unsigned>(6), ints[7],
	     ints[8], ints[9], ints[10], ints[11], ints[12], ints[13], P<unsigned long long>(14));
}

static void runGroup(int base) {
	groupBase = base;
	lanes.assign(groupSize, Lane{});
	for (int l = 0; l < groupSize; l++) {
		Lane& ln = lanes[l];
		ln.stack.resize(1 << 17);
		getcontext(&ln.ctx);
		ln.ctx.uc_stack.ss_sp = ln.stack.data();
		ln.ctx.uc_stack.ss_size = ln.stack.size();
		ln.ctx.uc_link = nullptr;
		makecontext(&ln.ctx, laneEntry, 0);
	}
	for (;;) {
		for (int l = 0; l < groupSize; l++) {
			if (lanes[l].done) continue;
			cur = l;
			threadIdx.x = base + l;
			swapcontext(&sched, &lanes[l].ctx);
		}
		int done = 0, waiting = 0;
		for (int l = 0; l < groupSize; l++) {
			done += lanes[l].done;
			waiting += lanes[l].waiting;
			snap[l] = lanes[l].slot;
			lanes[l].waiting = false;
		}
		if (done == groupSize) return;
		if (waiting != groupSize) fail("threads of one group diverged around a shuffle");
		for (int l = 1; l < groupSize; l++)
			if (lanes[l].op != lanes[0].op || lanes[l].delta != lanes[0].delta)
				fail("threads of one group met at different shuffles");
	}
}

static void readAll(void* p, size_t n) {
	if (fread(p, 1, n, stdin) != n) fail("short input");
}

int main() {
	int32_t hdr[3];
	readAll(hdr, sizeof hdr);
	int nk = 0;
	while (emu_kernels[nk].f) nk++;
	if (hdr[0] < 0 || hdr[0] >= nk) fail("no such configuration");
	kern = emu_kernels[hdr[0]].f;
	groupSize = emu_kernels[hdr[0]].group;
	const int nargs = 15;
	mem.resize(nargs);
	ints.resize(nargs);
	for (int i = 0; i < nargs; i++) {
		int32_t kind;
		readAll(&kind, 4);
		bool ptr = i < 7 || i == 14;
		if (kind != (ptr ? 0 : 1)) fail("argument kinds do not match the kernel");
		if (ptr) {
			int64_t n;
			readAll(&n, 8);
			mem[i].resize(n + 1); // never empty, so every pointer is valid
			readAll(mem[i].data(), n);
			ranges.push_back(Range{mem[i].data(), mem[i].data() + n});
		} else {
			readAll(&ints[i], 4);
		}
	}
	body = callKernel;
	for (int y = 0; y < hdr[2]; y++)
		for (int x = 0; x < hdr[1]; x++) {
			blockIdx.x = x;
			blockIdx.y = y;
			for (int base = 0; base < 128; base += groupSize) runGroup(base);
		}
	fwrite(mem[14].data(), 1, mem[14].size() - 1, stdout);
	return 0;
}
