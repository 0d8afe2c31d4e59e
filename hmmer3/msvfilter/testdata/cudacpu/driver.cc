// Runs ssv_kernel, msv_kernel or msv_seg_kernel on the CPU through internal/cudacpu
// (cudacpu_test.go writes the input and reads the output).
//
// Input, little-endian: 8 int32 (kernel: 0 ssv_kernel, 1 msv_kernel, 2 msv_seg_kernel;
// nblocks, ntargets, grid, shared bytes, bias, base, tec), then four
// arrays, each an int64 byte count and the bytes: profile, residues,
// block table, tjbm (msv_kernel's per-target word). Output: ntargets
// uint32 results (ssv_kernel's maxima from 0; msv_kernel's 16-bit
// scores widened).
#include "emu.h"
#include "dpx.h"
#include "driver.h"

#include "defs.h"  // the shape, written by the test
#include "msv.cu"

int main(int argc, char** argv)
{
    need(argc == 3, "usage: driver input output");
    FILE* in = std::fopen(argv[1], "rb");
    need(in != nullptr, "cannot open input");
    int h[8];
    need(std::fread(h, 4, 8, in) == 8, "header");
    const int kind = h[0], nblocks = h[1], ntargets = h[2], grid = h[3];
    const size_t sharedBytes = (size_t)h[4];
    const int bias = h[5], base = h[6], tec = h[7];
    std::vector<unsigned char> prof = array(in), res = array(in), table = array(in), tjbm = array(in);
    std::fclose(in);

    const size_t n = ntargets > 0 ? (size_t)ntargets : 1;
    std::vector<unsigned> out32(n, 0);
    std::vector<unsigned short> out16(n, 0x5a5a);
    unsigned next = 0;
    emu::launch(grid, BLOCK, sharedBytes, [&] {
        if (kind == 0)
            ssv_kernel((const u32*)prof.data(), res.data(), (const Block*)table.data(), nblocks, &next, out32.data());
        else if (kind == 1)
            msv_kernel((const u32*)prof.data(), res.data(), (const Block*)table.data(), nblocks, &next, bias, base, tec,
                       (const int*)tjbm.data(), out16.data());
        else {
#if T == 1
            msv_seg_kernel((const u32*)prof.data(), res.data(), (const Block*)table.data(), nblocks, &next, bias, base,
                           tec, (const int*)tjbm.data(), out16.data());
#else
            need(false, "msv_seg_kernel needs T = 1");
#endif
        }
    });
    if (kind != 0)
        for (size_t i = 0; i < n; i++) out32[i] = out16[i];

    FILE* o = std::fopen(argv[2], "wb");
    need(o != nullptr, "cannot create output");
    std::fwrite(out32.data(), 4, (size_t)ntargets, o);
    std::fclose(o);
    return 0;
}
