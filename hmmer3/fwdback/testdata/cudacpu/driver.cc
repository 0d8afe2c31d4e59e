// Runs fwd.cu's and bwd.cu's kernels on the CPU through shim.h (see
// cudacpu_test.go, which writes the input and reads the output).
//
// Input, little-endian: 10 int32 (Q, QS, KP, check, nblocks, ntargets,
// grid, shared bytes, record capacity, special rows wanted), int64 state
// floats, int64 special-row floats, 2 float32 (emove, eloop), then six
// arrays, each an int64 byte count and the bytes: trans, odds, residues,
// block table, loop/move pairs, special-row offsets (int64 per target).
// Output: ntargets float32 (final C), uint32 record count, the records;
// with special rows, then Forward's rows, Backward's rows and ntargets
// int32 own-scale flags (Backward runs after Forward, as on the GPU).
#include "shim.h"
#include "driver.h"

#include "fwd.cu"
#include "bwd.cu"

int main(int argc, char** argv)
{
    need(argc == 3, "usage: driver input output");
    FILE* in = std::fopen(argv[1], "rb");
    need(in != nullptr, "cannot open input");
    int h[10];
    long long stateFloats = 0, rowFloats = 0;
    float ex[2];
    need(std::fread(h, 4, 10, in) == 10 && std::fread(&stateFloats, 8, 1, in) == 1 && std::fread(&rowFloats, 8, 1, in) == 1 &&
             std::fread(ex, 4, 2, in) == 2,
         "header");
    const int Q = h[0], QS = h[1], KP = h[2], check = h[3], nblocks = h[4], ntargets = h[5], grid = h[6];
    const size_t sharedBytes = (size_t)h[7];
    const unsigned reccap = (unsigned)h[8];
    const bool rows = h[9] != 0;
    std::vector<unsigned char> trans = array(in), odds = array(in), res = array(in), table = array(in), lm = array(in),
                               xoff = array(in);
    std::fclose(in);

    std::vector<float> outC(ntargets > 0 ? ntargets : 1);
    std::vector<ScaleRecord> rec(reccap > 0 ? reccap : 1);
    std::vector<float> state(stateFloats > 0 ? stateFloats : 1);
    std::vector<float> fx(rowFloats + 1), bx(rowFloats + 1);
    std::vector<int> own(ntargets > 0 ? ntargets : 1);
    unsigned next = 0, nrec = 0;

    _mm_setcsr(_mm_getcsr() | 0x8000);  // flush-to-zero on, denormals-are-zero off
    emu::launch(grid, BLOCK, sharedBytes, [&] {
        fwd_kernel((const float*)trans.data(), (const float*)odds.data(), Q, QS, KP, check, res.data(),
                   (const Block*)table.data(), nblocks, &next, (const float2*)lm.data(), ex[0], ex[1], state.data(),
                   outC.data(), rec.data(), &nrec, reccap, rows ? fx.data() : nullptr,
                   rows ? (const long long*)xoff.data() : nullptr);
    });
    if (rows) {
        next = 0;
        emu::launch(grid, BLOCK, sharedBytes, [&] {
            bwd_kernel((const float*)trans.data(), (const float*)odds.data(), Q, QS, KP, res.data(),
                       (const Block*)table.data(), nblocks, &next, (const float2*)lm.data(), ex[0], ex[1],
                       state.data(), fx.data(), (const long long*)xoff.data(), bx.data(), own.data());
        });
    }

    FILE* out = std::fopen(argv[2], "wb");
    need(out != nullptr, "cannot create output");
    std::fwrite(outC.data(), 4, (size_t)ntargets, out);
    std::fwrite(&nrec, 4, 1, out);
    std::fwrite(rec.data(), sizeof(ScaleRecord), nrec < reccap ? nrec : reccap, out);
    if (rows) {
        std::fwrite(fx.data(), 4, (size_t)rowFloats, out);
        std::fwrite(bx.data(), 4, (size_t)rowFloats, out);
        std::fwrite(own.data(), 4, (size_t)ntargets, out);
    }
    need(std::fclose(out) == 0, "writing output");
    return 0;
}
