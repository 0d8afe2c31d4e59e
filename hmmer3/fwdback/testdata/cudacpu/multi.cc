// Runs fwd.cu's multi-profile kernel (fwd_multi_kernel) on the CPU through
// shim.h (see TestMultiKernelOnCPU, which writes the input and reads the
// output).
//
// Input, little-endian: 7 int32 (jobs, blocks, targets, grid, shared
// bytes, record capacity, Qmax), int64 state floats, then seven arrays,
// each an int64 byte count and the bytes: job table, block jobs, trans,
// odds, residues, block table, loop/move pairs.
// Output: targets float32 (final C), uint32 record count, the records.
#include "shim.h"
#include "driver.h"

#include "fwd.cu"

int main(int argc, char** argv)
{
    need(argc == 3, "usage: multi input output");
    static_assert(sizeof(FwdJob) == 40, "FwdJob is 40 bytes (batchplan.go)");
    FILE* in = std::fopen(argv[1], "rb");
    need(in != nullptr, "cannot open input");
    int h[7];
    long long stateFloats = 0;
    need(std::fread(h, 4, 7, in) == 7 && std::fread(&stateFloats, 8, 1, in) == 1, "header");
    const int nblocks = h[1], ntargets = h[2], grid = h[3], Qmax = h[6];
    const size_t sharedBytes = (size_t)h[4];
    const unsigned reccap = (unsigned)h[5];
    std::vector<unsigned char> jobs = array(in), bjob = array(in), trans = array(in), odds = array(in), res = array(in),
                               table = array(in), lm = array(in);
    std::fclose(in);

    std::vector<float> outC(ntargets > 0 ? ntargets : 1);
    std::vector<ScaleRecord> rec(reccap > 0 ? reccap : 1);
    std::vector<float> state(stateFloats > 0 ? stateFloats : 1);
    unsigned next = 0, nrec = 0;

    _mm_setcsr(_mm_getcsr() | 0x8000);  // flush-to-zero on, denormals-are-zero off
    emu::launch(grid, BLOCK, sharedBytes, [&] {
        fwd_multi_kernel((const FwdJob*)jobs.data(), (const int*)bjob.data(), (const float*)trans.data(),
                         (const float*)odds.data(), Qmax, res.data(), (const Block*)table.data(), nblocks, &next,
                         (const float2*)lm.data(), state.data(), outC.data(), rec.data(), &nrec, reccap);
    });

    FILE* out = std::fopen(argv[2], "wb");
    need(out != nullptr, "cannot create output");
    std::fwrite(outC.data(), 4, (size_t)ntargets, out);
    std::fwrite(&nrec, 4, 1, out);
    std::fwrite(rec.data(), sizeof(ScaleRecord), nrec < reccap ? nrec : reccap, out);
    need(std::fclose(out) == 0, "writing output");
    return 0;
}
