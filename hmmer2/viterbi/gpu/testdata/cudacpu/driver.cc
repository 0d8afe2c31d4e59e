// Runs viterbi.cu's kernel on the CPU through shim.h (cudacpu_test.go
// writes the input and reads the output).
//
// Input, little-endian: 4 int32 (nblocks, ntargets, grid, shared bytes),
// then seven arrays, each an int64 byte count and the bytes: transitions
// A, transitions B, exit scores, emissions, special scores, residues,
// block table. Output: ntargets int32 scores, then the number of
// blocks WAVE listed for the exact build and their first targets.
// STRIP also gets its records' scratch.
#include "shim.h"
#include "driver.h"

#include "defs.h"  // the shape, written by the test (after the shim: it defines T)
#include "viterbi.cu"

int main(int argc, char** argv)
{
    need(argc == 3, "usage: driver input output");
    FILE* in = std::fopen(argv[1], "rb");
    need(in != nullptr, "cannot open input");
    int h[4];
    need(std::fread(h, 4, 4, in) == 4, "header");
    const int nblocks = h[0], ntargets = h[1], grid = h[2];
    const size_t sharedBytes = (size_t)h[3];
    std::vector<unsigned char> A = array(in), B = array(in), E = array(in), emis = array(in), xsc = array(in),
                               res = array(in), table = array(in);
    std::fclose(in);

    std::vector<int> out(ntargets > 0 ? ntargets : 1, 0x5a5a5a5a);
    unsigned next = 0;
    // WAVE lists the blocks it could not score (at most all of them).
    std::vector<Block> ftab(nblocks > 0 ? nblocks : 1);
    unsigned nflag = 0;
#if STRIP
    // The strips' records: the longest target's rows for every warp of
    // the grid (STRIP_ROWS, if the test defines it, caps them: longer
    // targets go to the exact build).
    int rows = 0;
    for (int b = 0; b < nblocks; b++) rows = std::max(rows, ((const Block*)table.data())[b].maxLen);
#ifdef STRIP_ROWS
    rows = std::min(rows, STRIP_ROWS);
#endif
    rows = std::max(rows, 1);
    std::vector<int4> scratch((size_t)grid * (BLOCK / 32) * (size_t)rows);
#endif
    emu::launch(grid, BLOCK, sharedBytes, [&] {
        h2vit_kernel((const int4*)A.data(), (const int4*)B.data(), (const int*)E.data(), (const int2*)emis.data(),
                     res.data(), (const Block*)table.data(), nblocks, &next, (const int*)xsc.data(), out.data(),
                     WAVE ? ftab.data() : nullptr, WAVE ? &nflag : nullptr
#if STRIP
                     , scratch.data(), rows
#endif
        );
    });

    FILE* o = std::fopen(argv[2], "wb");
    need(o != nullptr, "cannot create output");
    std::fwrite(out.data(), 4, (size_t)ntargets, o);
    // Then the listed blocks' targets (WAVE: one a block; one strip of
    // NS targets a warp: up to NS).
    std::vector<int> listed;
    for (unsigned f = 0; f < nflag; f++)
        for (int q = 0; q < ftab[f].nseq; q++) listed.push_back(ftab[f].seq[q]);
    const unsigned nlisted = (unsigned)listed.size();
    std::fwrite(&nlisted, 4, 1, o);
    std::fwrite(listed.data(), 4, listed.size(), o);
    std::fclose(o);
    return 0;
}
