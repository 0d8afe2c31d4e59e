// Runs fwdbound.cu's kernel on the CPU through shim.h (see
// TestBoundKernelOnCPU, which writes the input and reads the output).
//
// Input, little-endian: 6 int32 (jobs, tasks, grid, threads a block, Cmax,
// shared bytes), then five arrays, each an int64 byte count and the bytes:
// job table, task table, trans, odds, residues.
// Output: tasks float32 (final C), then tasks int32 (scale exponents).
#include "shim.h"
#include "driver.h"

#define FB_SHARED_BASE SHARED_BASE
#include "fwdbound.cu"

int main(int argc, char** argv)
{
    need(argc == 3, "usage: bound input output");
    static_assert(sizeof(BoundJob) == 40, "BoundJob is 40 bytes (boundplan.go)");
    static_assert(sizeof(BoundTask) == 24, "BoundTask is 24 bytes (boundplan.go)");
    FILE* in = std::fopen(argv[1], "rb");
    need(in != nullptr, "cannot open input");
    int h[6];
    need(std::fread(h, 4, 6, in) == 6, "header");
    const int ntasks = h[1], grid = h[2], threads = h[3], Cmax = h[4];
    const size_t sharedBytes = (size_t)h[5];
    std::vector<unsigned char> jobs = array(in), tasks = array(in), trans = array(in), odds = array(in), res = array(in);
    std::fclose(in);

    std::vector<float> outC(ntasks > 0 ? ntasks : 1);
    std::vector<int> outExp(ntasks > 0 ? ntasks : 1);
    unsigned next = 0;
    _mm_setcsr(_mm_getcsr() | 0x8000);  // flush-to-zero on, denormals-are-zero off
    emu::launch(grid, threads, sharedBytes, [&] {
        fwdbound_kernel((const BoundJob*)jobs.data(), (const BoundTask*)tasks.data(), ntasks,
                        (const float*)trans.data(), (const float*)odds.data(), res.data(), Cmax, &next, outC.data(),
                        outExp.data());
    });

    FILE* out = std::fopen(argv[2], "wb");
    need(out != nullptr, "cannot create output");
    std::fwrite(outC.data(), 4, (size_t)ntasks, out);
    std::fwrite(outExp.data(), 4, (size_t)ntasks, out);
    need(std::fclose(out) == 0, "writing output");
    return 0;
}
