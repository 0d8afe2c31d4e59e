// Runs vit_kernel, vit16_kernel or vit16p_kernel on the CPU through
// shim.h (cudacpu_test.go writes the input and reads the output).
//
// Input, little-endian: 11 int32 (kernel: 0 vit_kernel, 1 vit16_kernel,
// 2 vit16p_kernel; nblocks, ntargets, grid, shared bytes, base, emove,
// eloop, ddbound, tbmmin, lim), then five arrays, each an int64 byte count and the bytes:
// emissions, transitions, residues, block table, N/J moves. Output:
// ntargets int32 results.
#include "shim.h"
#include "driver.h"

#include "defs.h"  // the shape, written by the test
#include "vit.cu"
#include "vit16.cu"
#include "vit16p.cu"

int main(int argc, char** argv)
{
    need(argc == 3, "usage: driver input output");
    FILE* in = std::fopen(argv[1], "rb");
    need(in != nullptr, "cannot open input");
    int h[11];
    need(std::fread(h, 4, 11, in) == 11, "header");
    const int kind = h[0], nblocks = h[1], ntargets = h[2], grid = h[3];
    const size_t sharedBytes = (size_t)h[4];
    const int base = h[5], emove = h[6], eloop = h[7], ddbound = h[8], tbmmin = h[9], lim = h[10];
    std::vector<unsigned char> emis = array(in), trans = array(in), res = array(in), table = array(in), moves = array(in);
    std::fclose(in);

    std::vector<int> out(ntargets > 0 ? ntargets : 1, 0x5a5a5a5a);
    unsigned next = 0;
    emu::launch(grid, BLOCK, sharedBytes, [&] {
        if (kind == 0)
            vit_kernel((const u32*)emis.data(), (const uint4*)trans.data(), res.data(), (const Block*)table.data(),
                       nblocks, &next, base, emove, eloop, ddbound, (const int*)moves.data(), out.data());
        else if (kind == 2)
            vit16p_kernel((const u32*)emis.data(), (const uint4*)trans.data(), res.data(), (const Block*)table.data(),
                          nblocks, &next, base, emove, eloop, ddbound, tbmmin, lim, (const int*)moves.data(), out.data());
        else
            vit16_kernel((const u32*)emis.data(), (const uint4*)trans.data(), res.data(), (const Block*)table.data(),
                         nblocks, &next, base, emove, eloop, ddbound, tbmmin, lim, (const int*)moves.data(), out.data());
    });

    FILE* o = std::fopen(argv[2], "wb");
    need(o != nullptr, "cannot create output");
    std::fwrite(out.data(), 4, (size_t)ntargets, o);
    std::fclose(o);
    return 0;
}
