// Runs envdecode.cu's and envtrace.cu's kernels on the CPU through shim.h
// (envcpu_test.go writes the input and reads the output).
//
// Input, little-endian: 4 int32 (n envelopes, Q, M, trace steps room),
// 2 float32 (eloop, emove), then seven arrays, each an int64 byte count
// and the bytes: EnvDesc[n], the transitions, loop/move pairs, Forward's
// and Backward's full matrices, Forward's and Backward's special rows.
// Output: the four matrix and row arrays as the kernels leave them, then
// EnvDecoded[n], int32 tcount[n] and the trace steps.
#define ENV_KERNELS 1
#include "shim.h"
#include "driver.h"

#include "fwd.cu"
#include "bwd.cu"
#include "envdecode.cu"
#include "envtrace.cu"

int main(int argc, char** argv)
{
    need(argc == 3, "usage: envdriver input output");
    FILE* in = std::fopen(argv[1], "rb");
    need(in != nullptr, "cannot open input");
    int h[4];
    float ex[2];
    need(std::fread(h, 4, 4, in) == 4 && std::fread(ex, 4, 2, in) == 2, "header");
    const int n = h[0], Q = h[1], M = h[2], room = h[3];
    std::vector<unsigned char> desc = array(in), tf = array(in), lm = array(in), fm = array(in), bm = array(in),
                               fx = array(in), bx = array(in);
    std::fclose(in);
    const size_t sizes[4] = {fm.size() - 64, bm.size() - 64, fx.size() - 64, bx.size() - 64};

    std::vector<EnvDecoded> dec(n > 0 ? n : 1);
    std::vector<int> tcount(n > 0 ? n : 1, -2);
    std::vector<TraceStep> steps(room > 0 ? room : 1, TraceStep{-1, -1, -1, -1.0f});

    _mm_setcsr(_mm_getcsr() | 0x8000);  // flush-to-zero on, denormals-are-zero off
    emu::launch((32 * n + 127) / 128, 128, 0, [&] {
        env_decode_kernel((const EnvDesc*)desc.data(), n, Q, M, (const float*)tf.data(), (const float2*)lm.data(),
                          ex[0], ex[1], (float*)fm.data(), (float*)bm.data(), (float*)fx.data(), (float*)bx.data(),
                          dec.data());
    });
    emu::launch((n + 63) / 64, 64, 0, [&] {
        env_trace_kernel((const EnvDesc*)desc.data(), n, Q, M, (const float*)tf.data(), (const float2*)lm.data(),
                         ex[0], ex[1], (const float*)fm.data(), (const float*)bm.data(), (const float*)fx.data(),
                         (const float*)bx.data(), steps.data(), tcount.data(), dec.data());
    });

    FILE* out = std::fopen(argv[2], "wb");
    need(out != nullptr, "cannot create output");
    std::fwrite(fm.data(), 1, sizes[0], out);
    std::fwrite(bm.data(), 1, sizes[1], out);
    std::fwrite(fx.data(), 1, sizes[2], out);
    std::fwrite(bx.data(), 1, sizes[3], out);
    std::fwrite(dec.data(), sizeof(EnvDecoded), (size_t)n, out);
    std::fwrite(tcount.data(), 4, (size_t)n, out);
    std::fwrite(steps.data(), sizeof(TraceStep), (size_t)room, out);
    need(std::fclose(out) == 0, "writing output");
    return 0;
}
