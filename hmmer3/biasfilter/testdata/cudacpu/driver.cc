// Runs bias.cu on the CPU through shim.h (see cudacpu_test.go, which
// writes the input and reads the output). bias_tables.h is the generated
// table text (tablesSource), written beside the test's build.
//
//   driver log   < doubles > doubles   glibc_log of each input
//   driver logf  < floats  > floats    glibc_logf of each input
//   driver kernel < input  > output    the kernel
//
// Kernel input, little-endian: 5 int32 (kp, nblocks, ntargets, grid,
// block), then four arrays, each an int64 byte count and the bytes: par,
// odds, residues, block table. Output: ntargets float32.
#include "shim.h"
#include "driver.h"

#include "bias_tables.h"
#include "bias.cu"

#include <string>

template <class T, class F>
static void each(F fn)
{
    T buf[4096];
    size_t n;
    while ((n = std::fread(buf, sizeof(T), 4096, stdin)) > 0) {
        for (size_t i = 0; i < n; i++) buf[i] = fn(buf[i]);
        need(std::fwrite(buf, sizeof(T), n, stdout) == n, "write");
    }
}

int main(int argc, char** argv)
{
    need(argc == 2, "usage: driver log|logf|kernel");
    std::string mode = argv[1];
    if (mode == "log") {
        each<double>([](double x) { return glibc_log(x, LOG_TAB); });
        return 0;
    }
    if (mode == "logf") {
        each<float>([](float x) { return glibc_logf(x, LOGF_TAB); });
        return 0;
    }
    need(mode == "kernel", "unknown mode");
    int h[5];
    need(std::fread(h, 4, 5, stdin) == 5, "header");
    const int kp = h[0], nblocks = h[1], ntargets = h[2], grid = h[3], block = h[4];
    std::vector<unsigned char> par = array(stdin), odds = array(stdin), res = array(stdin), table = array(stdin);
    std::vector<float> out(ntargets > 0 ? ntargets : 1);
    // Unwritten scores stay NaN with a marker payload, so a target the
    // kernel skipped cannot pass for a score.
    for (float& o : out) o = __uint_as_float(0x7fc0dead);
    unsigned next = 0;
    emu::launch(grid, block, 288 * 8 + 8 * (size_t)kp, [&] {
        bias_kernel((const float*)par.data(), (const float2*)odds.data(), kp, res.data(), (const BiasBlock*)table.data(),
                    nblocks, &next, out.data());
    });
    need(std::fwrite(out.data(), 4, (size_t)ntargets, stdout) == (size_t)ntargets, "write");
    return 0;
}
