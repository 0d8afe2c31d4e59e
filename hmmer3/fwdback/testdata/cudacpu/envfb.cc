// Runs envfwd.cu's and envbwd.cu's kernels on the CPU through shim.h
// (envfb_cpu_test.go writes the input and reads the output): Forward,
// then Backward from Forward's special rows, as on the GPU.
//
// Input, little-endian: 5 int32 (n envelopes, Q, QS, KP, check), 2
// float32 (emove, eloop), 2 int64 (special-row floats, matrix floats),
// then six arrays, each an int64 byte count and the bytes: EnvDesc[n],
// the plan's transitions and match odds, the residues, int64 residue
// offsets, the loop/move pairs. Output: Forward's special rows and full
// matrices, Backward's, and int32 own-scale flags.
#define ENV_KERNELS 1
#include "shim.h"
#include "driver.h"

#include "fwd.cu"
#include "bwd.cu"
#include "envdecode.cu"
#include "envbwd.cu"
#include "envfwd.cu"

int main(int argc, char** argv)
{
    need(argc == 3, "usage: envfb input output");
    FILE* in = std::fopen(argv[1], "rb");
    need(in != nullptr, "cannot open input");
    int h[5];
    float ex[2];
    long long sz[2];
    need(std::fread(h, 4, 5, in) == 5 && std::fread(ex, 4, 2, in) == 2 && std::fread(sz, 8, 2, in) == 2, "header");
    const int n = h[0], Q = h[1], QS = h[2], KP = h[3], check = h[4];
    std::vector<unsigned char> desc = array(in), trans = array(in), odds = array(in), res = array(in), roff = array(in),
                               lm = array(in);
    std::fclose(in);
    // -1 is no value: a cell or row the kernels skip shows.
    std::vector<float> fx(sz[0] + 1, -1.0f), fm(sz[1] + 1, -1.0f), bx(sz[0] + 1, -1.0f), bm(sz[1] + 1, -1.0f);
    std::vector<int> own(n > 0 ? n : 1, -1);

    _mm_setcsr(_mm_getcsr() | 0x8000);  // flush-to-zero on, denormals-are-zero off
    emu::launch(n, 32, 16 * (size_t)Q, [&] {
        env_fwd_kernel((const EnvDesc*)desc.data(), n, (const float*)trans.data(), (const float*)odds.data(), Q, QS, KP,
                       check, res.data(), (const long long*)roff.data(), (const float2*)lm.data(), ex[0], ex[1], fx.data(),
                       fm.data());
    });
    emu::launch(n, 32, 16 * (size_t)Q, [&] {
        env_bwd_kernel((const EnvDesc*)desc.data(), n, (const float*)trans.data(), (const float*)odds.data(), Q, QS, KP,
                       res.data(), (const long long*)roff.data(), (const float2*)lm.data(), ex[0], ex[1], fx.data(),
                       bx.data(), own.data(), bm.data());
    });

    FILE* out = std::fopen(argv[2], "wb");
    need(out != nullptr, "cannot create output");
    std::fwrite(fx.data(), 4, (size_t)sz[0], out);
    std::fwrite(fm.data(), 4, (size_t)sz[1], out);
    std::fwrite(bx.data(), 4, (size_t)sz[0], out);
    std::fwrite(bm.data(), 4, (size_t)sz[1], out);
    std::fwrite(own.data(), 4, (size_t)n, out);
    need(std::fclose(out) == 0, "writing output");
    return 0;
}
