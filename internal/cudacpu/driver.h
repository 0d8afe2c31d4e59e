// Input helpers of the drivers that run a kernel source on the CPU (each
// package's testdata/cudacpu/driver.cc): the Go test writes the kernel's
// arguments to a file, the driver reads them back.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <vector>

// need stops the driver with a message when ok is false.
static void need(bool ok, const char* what)
{
    if (!ok) {
        std::fprintf(stderr, "driver: %s\n", what);
        std::exit(2);
    }
}

// array reads an int64 byte count and that many bytes, with 64 bytes of
// slack after them, as the device buffers have: kernels may read a word
// past the residues.
static std::vector<unsigned char> array(FILE* f)
{
    long long n = 0;
    need(std::fread(&n, 8, 1, f) == 1 && n >= 0, "array size");
    std::vector<unsigned char> a((size_t)n + 64);
    need(std::fread(a.data(), 1, (size_t)n, f) == (size_t)n, "array bytes");
    return a;
}
