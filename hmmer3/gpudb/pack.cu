// pack_layout writes the residues of a warp-block layout (gpudb.go's
// packResidues, word for word) from the targets' residues concatenated
// in raw: entry k (a whole target, or a window of one) starts at byte
// start[k] of raw and is len[k] long; block b's residues start at byte
// boff[b], one 32-bit word per row r and slot g at word r*S + g, holding
// residues 4r..4r+3 of entry b*S + g, 0xff past its end and in slots
// without an entry. A CUDA block takes warp blocks in turn; its threads
// take consecutive words, so the writes are coalesced and each read is
// one entry's four bytes.
extern "C" __global__ void pack_layout(const unsigned char *__restrict__ raw,
                                       const unsigned long long *__restrict__ start,
                                       const unsigned int *__restrict__ len,
                                       const unsigned long long *__restrict__ boff,
                                       unsigned int nb, unsigned int S, unsigned int n,
                                       unsigned char *__restrict__ out)
{
    for (unsigned int b = blockIdx.x; b < nb; b += gridDim.x) {
        unsigned long long o = boff[b];
        unsigned int words = (unsigned int)((boff[b + 1] - o) / 4);
        unsigned int *dst = (unsigned int *)(out + o);
        for (unsigned int w = threadIdx.x; w < words; w += blockDim.x) {
            unsigned int r = w / S, g = w - r * S, k = b * S + g;
            unsigned int word = 0xffffffffu;
            if (k < n) {
                unsigned int L = len[k], p = 4 * r;
                const unsigned char *d = raw + start[k];
                if (p < L) {
                    word = 0;
                    for (unsigned int q = 0; q < 4; q++) {
                        unsigned int x = p + q < L ? d[p + q] : 0xffu;
                        word |= x << (8 * q);
                    }
                }
            }
            dst[w] = word;
        }
    }
}
