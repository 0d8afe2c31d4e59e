// HMMER 2.3.2's integer Viterbi score (P7Viterbi, score only) on the
// GPU, identical to viterbi.ScoreOne for every sequence.
//
// Layout. A group of G = T*W threads scores one sequence; thread r of
// the group owns C consecutive model nodes and keeps their M, I and D
// cells of the previous row in registers as int32. With W == 1 a warp
// holds S = 32/T groups (sequences of similar length, from the
// length-sorted warp blocks of hmmer3/gpudb) and all exchanges are warp
// shuffles; with W > 1 the block is one group and warps exchange through
// shared memory. Nodes are dealt so that every thread has C or C-1 real
// nodes (ranks below EXTRA have C); the slot C-1 of a short rank is
// padding whose values are never read by a real node and never reach E.
//
// Exactness. Every cell is computed with the very sums of HMMER2's C
// code in int32 two's complement (__viaddmax_s32 and wadd wrap, as the C
// additions do on x86-64), and every -INFTY clamp sits where HMMER2 has
// it. Only max operations are regrouped: max(max(a,b),c) == max(a,max(b,c))
// for any int32 values, so the order of comparisons cannot matter. The
// one recurrence that crosses threads inside a row is D(k) = max(D(k-1) +
// dd(k-1), M(k-1) + md(k-1), -INFTY). It is evaluated exactly, not
// reassociated (except by DSCAN, below, where no sum can wrap): each
// thread runs its own chunk sequentially from an incoming D(k0-1), first
// guessed (-INFTY), then taken from its neighbour's latest result, and
// the passes repeat until no thread's outgoing D changes. At that point
// every chunk was computed from the value its predecessor now holds, so
// the whole row satisfies the recurrence, whose solution from D(0) =
// -INFTY is unique: the values are HMMER2's. (Rank 0 is exact after the
// first pass, rank r after pass r+1 at the latest, so the loop ends.)
//
// Several sequences per thread (NS > 1, one-warp shapes only). The
// kernel's cost per cell is mostly shared-memory traffic: 36 bytes of
// transition and exit scores and 8 of emission scores per node and row.
// With NS sequences on the same nodes a thread loads the transitions
// once for all of them, and only the emissions per sequence (36/NS + 8
// bytes a cell). Lane (g, r) scores sequences g*NS .. g*NS+NS-1 of its
// warp block, which gpudb packs with T/NS threads per target; each
// sequence keeps its own registers, shuffles and special states, so
// every value is computed exactly as with NS = 1.
//
// Transitions in registers (TRANS_REG). A thread owns the same nodes for
// every sequence it scores, so it can load its nodes' nine transition,
// begin and end scores once per launch and keep them in registers: the
// shared-memory traffic per cell drops to the emission pair.
//
// Several groups per block (NGRP > 1, multi-warp shapes only). The
// block's NGRP groups score NGRP sequences of neighbouring warp blocks of
// the length-sorted database and share one shared-memory copy of the
// transitions, so more sequences fit on a multiprocessor and one group's
// barrier wait is covered by another's work. Barriers stay block-wide:
// every group runs the block's longest row count (a group past its
// sequence's end computes unused rows, as short sequences of a one-warp
// block do), and a D-chain pass repeats for all groups while any group's
// outgoing D changes (a group with nothing new skips the pass's work).
//
// Short D passes (DEXIT, with LEAN only). A pass after the first
// recomputes a chunk's D chain from a new incoming D(k0-1). Once a node's
// new value equals the one the previous pass left there, the rest of the
// chunk is equal too (the same recurrence from the same value with the
// same M->D sources: only node k0's source changes between passes, and it
// comes first), so the warp stops at the first tile boundary where no
// lane's value changed; the slots after it already hold this pass's
// values.
//
// Lean state (LEAN). The first D pass runs inside the M and I loop (node
// j's M->D source is the new M of node j-1, just computed), and later
// passes recompute each source and reload D->D instead of keeping them
// in two more arrays of C: 3C registers of state instead of 5C, for
// longer chunks on one warp. With DEXIT later passes are short, so the
// recomputation is cheap.
//
// D state in shared memory (DSHARED, with LEAN and without DEXIT). Each
// thread keeps its chunk's D cells in its own slots of shared memory
// ((q*C + j)*32 + lane of its warp's region: no bank conflicts, no other
// thread touches them, so no barrier is needed) instead of registers:
// 2C registers of state, so one warp holds C up to 96 (M = 3,072; on
// sm_90 C = 63-94 still spilled 200-312 bytes, against 848 at C = 63
// with D in registers), at the price of a shared load and store per cell
// and pass after the first. Pass 1 rewrites every D cell (it reads
// none), so pass 0 stores nothing but its last real node's value (kept
// in a register): the M and I loop then only loads from shared memory,
// and the compiler may schedule those loads freely (a store between them
// could alias a table entry for all it knows). The passes load a tile of
// sources before storing its cells, for the same reason.
//
// D chain by a scan (DSCAN, shapes without LEAN and one group a block;
// auto's choice to M = 4096). Where no sum can wrap (every score finite
// and within 2^24, same-row scores <= 0, real values far from 2^31: ScanMaxLen,
// scanbound.go; the host sends other models and longer targets to the
// build with D passes) the chain may be regrouped: a chunk maps its
// incoming D to out = max(A, in + B), A = max(pass 0's last D, new
// M(k0-1) + tmd + the chunk's later D->D sum), B = the chunk's D->D sum;
// a Hillis-Steele scan over the T ranks composes the maps (max(A2, A1 +
// B2), B1 + B2), and each slot then takes max(pass-0 D, y) with y the
// incoming D carried along by D->D additions: no second pass chain of
// add-maxes, no vote loop. Real values: the same maxima over the same
// paths with exact sums; -INFTY-derived values stay so (ranks without a
// node, after the last node, pass theirs only to such ranks; their sums
// of several -INFTY may wrap, which reaches neither a real node nor E).
// The regrouped maxima are HMMER2's clamped D exactly: the extra terms
// (pass 0's guessed source and incoming -INFTY) are at most the true
// source and incoming D, which HMMER2's clamps keep >= -INFTY. (An FP32
// build of these recurrences, exact under a length bound, lost 8-22 % on
// an H100 and was removed after commit 3cb07fb: docs/hmm2search.md, "FP32
// cells".)
//
// The scan in groups of several warps (DSCAN with W > 1, one group a
// block; auto's for 512 < M <= 4096). Each warp scans its ranks' maps
// as above, rank 0 of a later warp mapping the warp's input X (its first
// D, whose source lies in the previous warp) to its last D. Lane 31
// publishes the warp's map (A, B) from X to its last D and, with the next
// warp's first M->D and D->D scores folded in, its map (P, Q) from X to
// the next warp's X, with its last new M and I and its E maximum, in
// row-parity slots; one barrier; then every thread composes the maps of
// the warps before its own (X = -INFTY for warp 0, whose rank 0 starts
// from D(0)), which gives its warp's X and the previous warp's last D
// (rank 0's incoming D, and its D(k0-1) for the next row). The sums are
// the one-warp scan's, regrouped over the whole row: ScanMaxLen bounds
// the D->D sum of all nodes, so no regrouped sum wraps here either.
// Before, multi-warp groups paid a barrier for the exchange and one a
// vote of the D passes.
//
// The D pass deferred (DDEFER, with SCANPASS). The scan's final pass is
// run slot by slot inside the next row's M loop, which needs D(i-1, k-1)
// at node k anyway: each thread keeps the row's incoming D and M->D
// sources (src) and recomputes D(k) = max(D(k-1) + tdd, src(k)) just
// before src(k) is replaced, and the neighbour's last D is the scan's
// composed value. The same sums and maxima as SCANPASS, no D array, and
// the chain overlaps the M and I cells. Row 0's D cells come from
// -INFTY sources and D->D scores <= 0 (tdd into node 1 is -INFTY), so
// they are -INFTY as HMMER2's.
//
// The scan's final pass (SCANPASS, with DSCAN; auto's to M = 256 and
// from 385 to 4096). The scan gives each rank its true incoming D(k0-1)
// (the composed maps are
// exact where no sum wraps), so one pass of HMMER2's own recurrence from
// it, D(k) = max(D(k-1) + tdd, source), yields the row's D cells: one
// add-max a cell instead of an addition and a maximum with pass 0's value.
//
// No clamps that cannot bind (NOCLAMP, with DSCAN; as SCANPASS).
// HMMER2 clamps the M, I and D cells and the N, B, J and C states at
// -INFTY; where the model's scores are bounded (ScanMaxLen) and the
// target is short enough that low = nmove + min(0, L*nloop) + min bsc +
// min(0, min msc) >= -INFTY + 2^26 (ClampFreeMaxLen, scanbound.go, which
// gives the proof), every M cell is >= low, so the M, M->D source (and
// with it D), N, B and C clamps never bind, nor the I clamp after row 1;
// row 1's unclamped I cells (at least -INFTY - 3*2^24, no wrap) only feed
// maxima whose other term is larger than -INFTY plus a score, which then
// do not change. Those clamps become plain additions (off the ALU pipe
// where the compiler takes IMAD); J and each rank's first source keep
// theirs. Values no real node or E reads (I_M, padding) may wrap.
//
// Warps as a wavefront with a speculated B (WAVE, with DSCAN, SCANPASS and
// W > 1; the `wave` modifier). The only value a row needs from warps after
// its own is B, through J (B = max(N + N->B, J + J->B), J from E over the
// whole row). The kernel takes B = N + N->B (N depends on the row number
// only), so warp w needs nothing from later warps and runs up to WRING
// rows ahead of warp w+1: through a ring of WRING slots in shared memory
// it hands over each row's last new M, I and D (its incoming D is exact:
// warp w-1 finished that row) and the E maximum so far, with a row count
// per producer and per consumer instead of a barrier. The last warp, with
// E over the row, computes J and C and checks J + J->B <= N + N->B at every
// row: while that holds the speculated B is HMMER2's, so every cell is
// (by induction over the rows, the first failing row is checked on exact
// values). A sequence where it fails is listed in ftab (its block, counted
// in *nflag) and scored again by the same shape without WAVE, which reads
// its blocks from that list.
//
// Compile-time parameters: T, W, C, EXTRA, NS, KP (residue codes), BLOCK,
// TRANS_SHARED, EMIS_SHARED (tables copied to shared memory or read from
// global memory through the read-only cache), TRANS_REG, NGRP, DEXIT, LEAN,
// DSHARED, DSCAN, SCANPASS, DDEFER, NOCLAMP, WAVE, WRING, WSLEEP, WBAR, MINBLOCKS (a register cap through __launch_bounds__)
// and EMIS_HINT (cache hints for emissions in global memory): MINBLOCKS
// and EMIS_HINT change where values live, never a value.

typedef unsigned int u32;

#define NEGINF (-987654321)  // HMMER2's -INFTY
#define G (T * W)
#ifndef NS
#define NS 1
#endif
#define S (32 / T)           // thread groups per warp (1 when W > 1)
#define SP (S * NS)          // sequences per warp block
#if W > 1 && NS != 1
#error "several sequences per thread need a one-warp shape"
#endif
#define FULL 0xffffffffu
#ifndef TRANS_REG
#define TRANS_REG 0
#endif
#ifndef NGRP
#define NGRP 1
#endif
#ifndef DEXIT
#define DEXIT 0
#endif
#define DTILE 4  // nodes between the exit votes of a short D pass
#ifndef LEAN
#define LEAN 0
#endif
#ifndef DSHARED
#define DSHARED 0
#endif
#ifndef MINBLOCKS
#define MINBLOCKS 0
#endif
// Emission loads from global memory (EMIS_SHARED 0): 0 through the
// read-only cache, 1 cached in L2 only (__ldcg), 2 evict-first
// (__ldcs). An emission row is read once per residue and the table
// (C*G*KP*8 bytes) outgrows L1 where it is not shared, so streaming it
// past L1 may leave L1 to register spills.
#ifndef EMIS_HINT
#define EMIS_HINT 0
#endif
#if !EMIS_SHARED && EMIS_HINT == 1
#define EMIS_AT(p) __ldcg(p)
#elif !EMIS_SHARED && EMIS_HINT == 2
#define EMIS_AT(p) __ldcs(p)
#else
#define EMIS_AT(p) (*(p))
#endif
#if NGRP > 1 && W == 1
#error "several groups per block need a multi-warp shape"
#endif
#if TRANS_REG && TRANS_SHARED
#error "transitions are either in registers or in shared memory"
#endif
#if DEXIT && !LEAN
#error "short D passes are only written for lean state"
#endif
#ifndef DSCAN
#define DSCAN 0
#endif
#if DSCAN && (LEAN || NGRP > 1)
#error "the D chain's scan is written for shapes without lean state, one group a block"
#endif
#ifndef NOCLAMP
#define NOCLAMP 0
#endif
#if NOCLAMP && !DSCAN
#error "cells without clamps are only written for the scan build"
#endif
#ifndef SCANPASS
#define SCANPASS 0
#endif
#if SCANPASS && !DSCAN
#error "the scan's final pass is only written for the scan build"
#endif
#ifndef DDEFER
#define DDEFER 0
#endif
#if DDEFER && !(DSCAN && SCANPASS)
#error "the deferred D pass is only written for the scan's final pass"
#endif
#if DSHARED && (DEXIT || !LEAN)
#error "D in shared memory is only written for lean state without short D passes"
#endif
#ifndef WAVE
#define WAVE 0
#endif
#if WAVE && !(DSCAN && SCANPASS && (W > 1 || STRIP) && NGRP == 1)
#error "the wavefront is written for the multi-warp scan with its final pass (or one strip), one group a block"
#endif
#ifndef WRING
#define WRING 4  // rows a warp may run ahead of the next (WAVE)
#endif
#ifndef WSLEEP
#define WSLEEP 0  // nanoseconds a waiting warp sleeps between looks (WAVE)
#endif
// WAVE_SPIN is one turn of a wait for another warp's row count (the CPU
// shim defines it to switch threads).
#ifndef WAVE_SPIN
#if WSLEEP > 0
#define WAVE_SPIN() __nanosleep(WSLEEP)
#else
#define WAVE_SPIN() ((void)0)
#endif
#endif
// Named barriers instead of row counts (WBAR, with WAVE and WRING 1): warp
// w hands row i to warp w+1 through bar.arrive on barrier 1 + 2w (warp
// w+1 waits there with bar.sync) and learns that the slot was read from
// barrier 2 + 2w; the hardware orders the slot's accesses and nothing
// spins. Ids 1..14: at most 8 warps.
#ifndef WBAR
#define WBAR 0
#endif
#if WBAR && (WRING != 1 || W > 8)
#error "the named barriers hand over one slot, between at most 8 warps"
#endif
#ifndef WAVE_BAR_SYNC
#define WAVE_BAR_SYNC(id, n) asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory")
#define WAVE_BAR_ARRIVE(id, n) asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory")
#endif
#ifndef STRIP
#define STRIP 0
#endif
#if STRIP && !(WAVE && T == 32 && (NS == 1 || W == 1) && TRANS_REG && !WBAR)
#error "vertical strips are written for one warp of 32 ranks a strip, transitions in registers"
#endif
// STRIP_MUTATE (tests only): 1 trusts the speculated B without the
// check, 2 takes the boundary record of the wrong row, 3 does not carry
// the E maximum from strip to strip; one strip, and several with
// STRIP_LC: 4 takes lane 0's C for the warp's, 5 lane 0's check;
// STRIP_LC: 6 takes the last strip's C alone, 7 checks in the last strip
// alone; STRIP_PS: 8 stores lane 30's record for the row's; STRIP_RW: 9
// reads the next row's residue.
#ifndef STRIP_MUTATE
#define STRIP_MUTATE 0
#endif
// STRIP_RECSH: the records reach the next strip through a ring of 64 in
// shared memory a warp, filled 32 rows ahead by asynchronous copies; a
// row's record is one broadcast shared load (no shuffles, no registers
// held between rows). STRIP_NR (with DDEFER): a row's M(k0-1) and the
// last row's D(k0-1) are the previous row's shuffled last M (nm) and
// incoming D (din), not shuffled again. STRIP_BS: the scan's D->D sums
// of every step, the same each row, are composed once a strip
// (scanDExitB). STRIP_LC: lane chains, no E crosses strips (below).
#ifndef STRIP_RECSH
#define STRIP_RECSH 0
#endif
#ifndef STRIP_NR
#define STRIP_NR 0
#endif
#ifndef STRIP_BS
#define STRIP_BS 0
#endif
#ifndef STRIP_LC
#define STRIP_LC 0
#endif
#ifndef STRIP_EA
#define STRIP_EA 0
#endif
// STRIP_RW (with STRIP_RECSH): the target's residue words reach each
// strip through a ring of 64 bytes a warp in shared memory, filled with
// the records 32 rows ahead, so a row reads its residue with one shared
// load instead of a global load of its word every four rows.
#ifndef STRIP_RW
#define STRIP_RW 0
#endif
#if STRIP_RW && !STRIP_RECSH
#error "STRIP_RW fills its ring with the records' copies"
#endif
#if STRIP_EA && !EMIS_SHARED
#error "STRIP_EA copies the strips' emissions to shared memory"
#endif
// STRIP_PS: lane 31 stores a row's record by one predicated store, so
// the warp does not branch and reconverge at every row's end (the
// profile put 8 % of the two-strip kernel's stall samples there).
#ifndef STRIP_PS
#define STRIP_PS 0
#endif
#if STRIP_PS && !defined(STRIP_ASYNC_PLAIN)
__device__ __forceinline__ void storeIf16(bool p, int4* dst, int4 v)
{
    asm volatile("{ .reg .pred q; setp.ne.u32 q, %0, 0; @q st.global.cg.v4.s32 [%1], {%2, %3, %4, %5}; }" ::"r"((unsigned)p), "l"(dst),
                 "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}
#endif
#if STRIP_NR && !DDEFER
#error "STRIP_NR takes the last row's D from the deferred pass"
#endif
// STRIP_SHORT: a strip whose ranks all hold C - 1 nodes runs C - 1 slots
// a row (the strip kernel's stripRows, built for both counts).
#ifndef STRIP_SHORT
#define STRIP_SHORT 0
#endif
#if STRIP_SHORT && !(EXTRA > 0 && C > 1)
#undef STRIP_SHORT
#define STRIP_SHORT 0
#endif
// STRIP_FL: the first and the last strip are built apart from the
// others (the strip kernel's stripRows with the strip's position known
// at compile time), so a row of the first strip has no record to read
// and one of the last no record to store, and neither tests it.
#ifndef STRIP_FL
#define STRIP_FL 0
#endif
// STRIP_U2: the strip kernel's rows two an iteration, so one row's
// record and special states can overlap the next row's cells; only in
// strips of at most STRIP_U2_MAXC slots a row (above it the unrolled
// rows spilled 48-264 bytes and lost 8-15 % on an H200).
#ifndef STRIP_U2
#define STRIP_U2 0
#endif
#define STRIP_U2_MAXC 14
// IntC<N> carries a slot count or a strip's position into the strip
// kernel's generic lambda.
template <int N>
struct IntC {
    static constexpr int value = N;
};
#if (STRIP_RECSH || STRIP_EA) && !defined(STRIP_ASYNC_PLAIN)
// copyAsync16 copies 16 bytes from global to shared memory without a
// register (cp.async, L2 only); the copies of a commitAsync group have
// landed once waitAsync1 returns with a newer group still in flight.
__device__ __forceinline__ void copyAsync16(int4* dst, const int4* src)
{
    asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %0; cp.async.cg.shared.global [s], [%1], 16; }" ::"l"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void commitAsync() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void waitAsync1() { asm volatile("cp.async.wait_group 1;" ::: "memory"); }
__device__ __forceinline__ void waitAsyncAll() { asm volatile("cp.async.wait_all;" ::: "memory"); }
// copyAsync4 copies 4 bytes from global to shared memory (cp.async
// through L1, the smallest size it takes).
__device__ __forceinline__ void copyAsync4(u32* dst, const u32* src)
{
    asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %0; cp.async.ca.shared.global [s], [%1], 4; }" ::"l"(dst), "l"(src) : "memory");
}
#endif
#if STRIP_RECSH
// ringGroup starts the asynchronous copies of rows i..i+31 (i a multiple
// of 32) into a warp's rings as one commit group: the records when
// records (not in strip 0), and with STRIP_RW the residue words (lanes
// 0-7, a word of four rows each).
__device__ __forceinline__ void ringGroup(int4* ring, const int4* rec, u32* rw, const u32* words, int i, int L, int lane, bool records)
{
    if (records && i + lane < L) copyAsync16(ring + ((i + lane) & 63), rec + i + lane);
#if STRIP_RW
    if (lane < 8 && i + 4 * lane < L) copyAsync4(rw + (((i >> 2) + lane) & 15), words + (i >> 2) + lane);
#else
    (void)rw;
    (void)words;
#endif
    commitAsync();
}
// ringRow keeps a warp's rings ahead at row i: every 32 rows (i > 0) it
// copies rows i+32..i+63 into the half that rows i-32..i-1 left, then
// waits for rows i..i+31.
__device__ __forceinline__ void ringRow(int4* ring, const int4* rec, u32* rw, const u32* words, int i, int L, int lane, bool records)
{
    if ((i & 31) == 0) {
        if (i > 0) {
            __syncwarp();
            ringGroup(ring, rec, rw, words, i + 32, L, lane, records);
        }
        waitAsync1();  // (rows i..i+31 have landed)
        __syncwarp();
    }
}
#endif
// WAVE_MUTATE (tests only): 1 trusts the speculated B without the check,
// 2 hands over the previous row's slot.
#ifndef WAVE_MUTATE
#define WAVE_MUTATE 0
#endif

// Block is hmmer3/gpudb's warp-block table entry.
struct Block {
    int seq[32];
    int len[32];
    int maxLen;
    int nseq;
    long long off;
};

// wadd is HMMER2's int addition: two's complement, wrapping.
__device__ __forceinline__ int wadd(int a, int b) { return (int)((u32)a + (u32)b); }
// addmax(a, b, c) = max(a + b, c) with a wrapping addition.
__device__ __forceinline__ int addmax(int a, int b, int c) { return __viaddmax_s32(a, b, c); }
// addclamp(a, b) = max(a + b, -INFTY), HMMER2's clamp of a cell.
__device__ __forceinline__ int addclamp(int a, int b) { return __viaddmax_s32(a, b, NEGINF); }

// scanDExit finishes a row's D chain over a warp by a shuffle scan. A
// lane's ranks map the D entering them to their last D, d -> max(d + B,
// A): B is the D->D sum over them (dd0 + cumLast), A the best path that
// starts inside (s0n carried over them, or their own chain's dlast). The
// maps are composed up the lanes and applied to the D entering the warp
// (hz); it returns the lane's last D and sets *in to the D entering it.
__device__ __forceinline__ int scanDExit(int s0n, int cumLast, int dlast, int dd0, int hz, int lane, int* in) {
    int A = addmax(s0n, cumLast, dlast), B = wadd(dd0, cumLast);
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
        const int a2 = __shfl_up_sync(FULL, A, o), b2 = __shfl_up_sync(FULL, B, o);
        if (lane >= o) { A = addmax(a2, B, A); B = wadd(b2, B); }
    }
    const int dl = addmax(hz, B, A);
    const int up = __shfl_up_sync(FULL, dl, 1);
    *in = lane == 0 ? hz : up;
    return dl;
}

// scanDDSums sets b[0..n-1] from b[0] = first (dd0 + cumLast, a lane's
// own D->D sum): b[s] is the lane's sum composed before step s of
// scanDExit's scan (over lanes lane-2^s+1..lane), b[5] (n = 6) after
// the last. The sums are the model's, the same every row, so kernels
// that keep them compose them once and scan only A.
__device__ __forceinline__ void scanDDSums(int first, int lane, int* b, int n) {
    b[0] = first;
#pragma unroll
    for (int s = 0; s + 1 < n; s++) {
        const int b2 = __shfl_up_sync(FULL, b[s], 1 << s);
        b[s + 1] = lane >= (1 << s) ? wadd(b2, b[s]) : b[s];
    }
}

#if STRIP_BS
// scanDExitB is scanDExit with the D->D sums given: bs[k] is a lane's
// composed sum before step k (offset 2^k), bs[5] after the last
// (scanDDSums).
__device__ __forceinline__ int scanDExitB(int s0n, int cumLast, int dlast, const int* bs, int hz, int lane, int* in) {
    int A = addmax(s0n, cumLast, dlast);
#pragma unroll
    for (int k = 0; k < 5; k++) {
        const int a2 = __shfl_up_sync(FULL, A, 1 << k);
        if (lane >= (1 << k)) A = addmax(a2, bs[k], A);
    }
    const int dl = addmax(hz, bs[5], A);
    const int up = __shfl_up_sync(FULL, dl, 1);
    *in = lane == 0 ? hz : up;
    return dl;
}
#endif

#define ROUND16(n) (((n) + 15) & ~15)
#define TRANS_BYTES (TRANS_SHARED ? 2 * 16 * C * G + ROUND16(4 * C * G) : 0)
#define EMIS_BYTES (EMIS_SHARED ? 8 * KP * C * G : 0)

// Exchange slots of a multi-warp group (ints): new M and I of each warp's
// last node by row parity, pass-0 D, later D by pass parity, warp E
// maxima, and the work item.
#if WAVE
// The wavefront: warp w's ring of WRING slots (int4: last new M, I, D and
// the E maximum of warps 0..w), then the rows warp w has published and
// the rows warp w+1 has taken from its ring.
#define X_RING 0
#define X_PROD (4 * W * WRING)
#define X_CONS (X_PROD + W)
#define X_LEN (X_CONS + W)
#define X_INTS (X_LEN + 1)
#elif DSCAN
// With the scan (one barrier a row): each warp's D maps (int4, by row
// parity) first, then its last node's new M and I and its E maximum, by
// row parity.
#define X_MAP 0
#define X_M (8 * W)
#define X_I (10 * W)
#define X_XE (12 * W)
#define X_LEN (14 * W)
#define X_INTS (14 * W + 1)
#else
#define X_M 0
#define X_I (2 * W)
#define X_D0 (4 * W)
#define X_D (5 * W)
#define X_XE (7 * W)
#define X_LEN (8 * W)
#define X_INTS (8 * W + 1)      // per group
#endif
#define X_NEXT (NGRP * X_INTS)  // the block's work item
#if W > 1
#define XCH_BYTES (4 * (NGRP * X_INTS + 1))
#else
#define XCH_BYTES 0
#endif
// The D slots of DSHARED follow the tables and the exchange slots.
#define DS_OFF (TRANS_BYTES + EMIS_BYTES + ROUND16(XCH_BYTES))

// A thread's rank in its warp's scan of the D chain (DSCAN).
#if W == 1
#define SCAN_RANK r
#else
#define SCAN_RANK lane
#endif

// Value of the last real node of this thread (slot C-1, or C-2 on a
// short rank).
#if EXTRA > 0 && C > 1
#define LAST(a) (isShort ? a[C - 2] : a[C - 1])
#else
#define LAST(a) (a[C - 1])
#endif

// D cell of sequence q at slot j, and the last real node's.
#if DSHARED
#define DGET(q, j) dsm[((q) * C + (j)) * 32]
#define DSET(q, j, v) (dsm[((q) * C + (j)) * 32] = (v))
#if EXTRA > 0 && C > 1
#define LASTD(q) DGET(q, isShort ? C - 2 : C - 1)
#else
#define LASTD(q) DGET(q, C - 1)
#endif
#else
#define DGET(q, j) Dv[q][j]
#define DSET(q, j, v) (Dv[q][j] = (v))
#define LASTD(q) LAST(Dv[q])
#endif

// The last row's D of this thread's last real node, and of slot j (in
// the M loop), computed there from the row's sources with DDEFER.
#if DDEFER
#define LASTD_ROW(q) dout[q]
#define DPREV(q, j) dcur[q]
#else
#define LASTD_ROW(q) LASTD(q)
#define DPREV(q, j) DGET(q, j)
#endif

// Node j's M->D source (new M(k-1) + tmd, clamped) and D->D score.
#if LEAN
#define SRC(q, j) ((j) == 0 ? s0[q] : addclamp(Mv[q][(j) - 1], TRANS_B(j).x))
#define DD(j) (TRANS_B(j).y)
#define SRC0(q) s0[q]
#else
#define SRC(q, j) src[q][j]
#define DD(j) dd[j]
#define SRC0(q) src[q][0]
#endif

// DPASS recomputes sequence q's D chain from incoming D d0 (a pass after
// the first). Every lane of the warp must run it when DEXIT is set.
#if DEXIT
#define DPASS(q, d0)                                                          \
    {                                                                         \
        int d = (d0);                                                         \
        bool live = true;                                                     \
        _Pragma("unroll") for (int j = 0; j < C; j++) {                       \
            if (j > 0 && j % DTILE == 0 && !__any_sync(FULL, live)) break;    \
            d = addmax(d, DD(j), SRC(q, j));                                  \
            if ((j + 1) % DTILE == 0) live = d != DGET(q, j);                 \
            DSET(q, j, d);                                                    \
        }                                                                     \
    }
#elif DSHARED
#define DPTILE 8  // sources loaded before a tile's D cells are stored
#define DPASS(q, d0)                                                          \
    {                                                                         \
        int d = (d0);                                                         \
        _Pragma("unroll") for (int j0 = 0; j0 < C; j0 += DPTILE) {            \
            int tdd[DPTILE], tsrc[DPTILE];                                    \
            _Pragma("unroll") for (int u = 0; u < DPTILE; u++)                \
                if (j0 + u < C) { tdd[u] = DD(j0 + u); tsrc[u] = SRC(q, j0 + u); } \
            _Pragma("unroll") for (int u = 0; u < DPTILE; u++)                \
                if (j0 + u < C) { d = addmax(d, tdd[u], tsrc[u]); DSET(q, j0 + u, d); } \
        }                                                                     \
    }
#else
#define DPASS(q, d0)                                                          \
    {                                                                         \
        int d = (d0);                                                         \
        _Pragma("unroll") for (int j = 0; j < C; j++) {                       \
            d = addmax(d, DD(j), SRC(q, j));                                  \
            DSET(q, j, d);                                                    \
        }                                                                     \
    }
#endif
// Pass 0's store of a D cell, and its last real node's value (LEAN).
#if DSHARED
#define DZSET(q, j) \
    if ((j) == C - 2) dzs[q] = dz[q]
#if EXTRA > 0 && C > 1
#define DZLAST(q) (isShort ? dzs[q] : dz[q])
#else
#define DZLAST(q) dz[q]
#endif
#else
#define DZSET(q, j) DSET(q, j, dz[q])
#define DZLAST(q) LASTD(q)
#endif

#ifndef SHARED_BASE
extern __shared__ __align__(16) unsigned char h2vit_smem[];
#define SHARED_BASE h2vit_smem
#endif

// MINBLOCKS caps the registers so that that many blocks fit a
// multiprocessor (more warps to hide latency, perhaps spills).
#if MINBLOCKS > 0
#define H2VIT_BOUNDS __launch_bounds__(BLOCK, MINBLOCKS)
#else
#define H2VIT_BOUNDS __launch_bounds__(BLOCK)
#endif

#if !STRIP
extern "C" __global__ void H2VIT_BOUNDS
h2vit_kernel(const int4* __restrict__ gA, const int4* __restrict__ gB, const int* __restrict__ gE,
             const int2* __restrict__ gEmis, const unsigned char* __restrict__ res,
             const Block* __restrict__ blocks, int nblocks, unsigned int* next,
             const int* __restrict__ xsc, int* __restrict__ out, Block* __restrict__ ftab, unsigned* nflag)
{
    // ftab and nflag: WAVE appends the blocks of the sequences it could
    // not score to ftab, counting them in *nflag; another build given
    // nflag scores the *nflag blocks of its table (that list).
#if !WAVE
    if (nflag != nullptr) nblocks = (int)*nflag;
#endif
    unsigned char* sp = (unsigned char*)SHARED_BASE;
#if TRANS_SHARED
    int4* tA = (int4*)sp;
    int4* tB = (int4*)(sp + 16 * C * G);
    int* tE = (int*)(sp + 32 * C * G);
    for (int i = threadIdx.x; i < C * G; i += BLOCK) {
        tA[i] = gA[i];
        tB[i] = gB[i];
        tE[i] = gE[i];
    }
#else
    const int4* tA = gA;
    const int4* tB = gB;
    const int* tE = gE;
#endif
    (void)tA; (void)tB; (void)tE;
#if EMIS_SHARED
    int2* tEm = (int2*)(sp + TRANS_BYTES);
    for (int i = threadIdx.x; i < KP * C * G; i += BLOCK) tEm[i] = gEmis[i];
#else
    const int2* tEm = gEmis;
#endif
#if W > 1
    volatile int* xblk = (volatile int*)(sp + TRANS_BYTES + EMIS_BYTES);
    const int grp = threadIdx.x / G;
    volatile int* xch = xblk + grp * X_INTS;
#endif
    __syncthreads();

    const int nloop = xsc[0], nmove = xsc[1], eloop = xsc[2], emove = xsc[3];
    const int cloop = xsc[4], cmove = xsc[5], jloop = xsc[6], jmove = xsc[7];
    const int lane = threadIdx.x & 31;
#if W == 1
    const int g = lane / T, r = lane % T;
#else
    const int g = 0, r = threadIdx.x % G;
    const int warp = r >> 5;
#endif
    const bool isShort = EXTRA > 0 && r >= EXTRA;
    (void)isShort;
#if DSHARED
    int* dsm = (int*)(sp + DS_OFF) + (threadIdx.x >> 5) * (NS * C * 32) + lane;
#endif
#if TRANS_REG
    // This thread's nodes' scores, for the whole launch.
    int4 rA[C], rB[C];
    int rE[C];
#pragma unroll
    for (int j = 0; j < C; j++) { rA[j] = gA[j * G + r]; rB[j] = gB[j * G + r]; rE[j] = gE[j * G + r]; }
#define TRANS_A(j) rA[j]
#define TRANS_B(j) rB[j]
#define TRANS_E(j) rE[j]
#else
#define TRANS_A(j) tA[(j) * G + r]
#define TRANS_B(j) tB[(j) * G + r]
#define TRANS_E(j) tE[(j) * G + r]
#endif
#if DSCAN
    // The D->D sum over this thread's real slots after the first (DSCAN).
    int cumLast = 0;
#pragma unroll
    for (int j = 1; j < C; j++)
        if (j < C - 1 || !isShort) cumLast = wadd(cumLast, TRANS_B(j).y);
#endif
#if DSCAN && W > 1
    // Lane 31 folds the next warp's first M->D and D->D scores into its
    // warp's map (the next rank's slot 0; none after the last warp).
    int mdNext = NEGINF, ddNext = 0;
    if (lane == 31 && r + 1 < G) {
        const int4 nb = gB[r + 1];
        mdNext = nb.x;
        ddNext = nb.y;
    }
#if !WAVE
    int4* xmap = (int4*)(sp + TRANS_BYTES + EMIS_BYTES) + X_MAP / 4;
#endif
#endif

    for (;;) {
        int b;
#if W == 1
        b = 0;
        if (lane == 0) b = (int)atomicAdd(next, 1u);
        b = __shfl_sync(FULL, b, 0);
        if (b >= nblocks) return;
        const Block* blk = &blocks[b];
        const int maxLen = blk->maxLen;
        const int nseq = blk->nseq;
#else
        if (threadIdx.x == 0) xblk[X_NEXT] = (int)atomicAdd(next, 1u);
#if WAVE
        if (threadIdx.x < 2 * W) xch[X_PROD + threadIdx.x] = 0;  // (and X_CONS)
#endif
        __syncthreads();
        b = xblk[X_NEXT] * NGRP;
        if (b >= nblocks) return;
        b += grp;  // this group's warp block; none past the table's end
        const bool own = b < nblocks;
        const Block* blk = &blocks[own ? b : 0];
        const int nseq = own ? blk->nseq : 0;
        if (r == 0) xch[X_LEN] = own ? blk->maxLen : 0;
        __syncthreads();
        int maxLen = 0;
#pragma unroll
        for (int o = 0; o < NGRP; o++) maxLen = max(maxLen, (int)xblk[o * X_INTS + X_LEN]);
        __syncthreads();
#endif
        const u32* words = (const u32*)(res + blk->off);
        bool active[NS];
        int len[NS], seq[NS];
        int Mv[NS][C], Iv[NS][C];
#if !DSHARED
        int Dv[NS][C];
#endif
#if LEAN
        int s0[NS];
#else
        int src[NS][C], dd[C];
#endif
        int xn[NS], xb[NS], xj[NS], xc[NS];
        u32 four[NS];
#if DDEFER
        int din[NS], dout[NS];  // the last row's incoming D and last real node's D
#endif
#pragma unroll
        for (int q = 0; q < NS; q++) {
            const int gq = g * NS + q;
            active[q] = gq < nseq;
            len[q] = active[q] ? blk->len[gq] : 0;
            seq[q] = active[q] ? blk->seq[gq] : 0;
#pragma unroll
            for (int j = 0; j < C; j++) { Mv[q][j] = NEGINF; Iv[q][j] = NEGINF; DSET(q, j, NEGINF); }
            xn[q] = 0; xb[q] = nmove; xj[q] = NEGINF; xc[q] = NEGINF;
            four[q] = 0;
#if DDEFER  // (row 0's D cells from these: -INFTY, every D->D score being <= 0)
            din[q] = NEGINF; dout[q] = NEGINF;
#pragma unroll
            for (int j = 0; j < C; j++) src[q][j] = NEGINF;
#endif
        }
        int pfin = 0;  // parity of the slot that holds the last row's final D (W > 1)
        (void)pfin;
        int dprev = NEGINF;  // the last row's D of the previous warp's last node (DSCAN, W > 1)
        (void)dprev;
#if WAVE
        // The previous warp's last node's M, I and D of the last row (its
        // hand-over), and whether the speculated B failed at a row.
        int hm = NEGINF, hi = NEGINF, hd = NEGINF;
        bool bad = false;
#endif

        for (int i = 0; i < maxLen; i++) {
            int x[NS];
            // Previous row's M, I, D of node k0-1 (the last node of rank r-1).
            int pm[NS], pi[NS], pd[NS];
#pragma unroll
            for (int q = 0; q < NS; q++) {
                if ((i & 3) == 0) four[q] = active[q] ? words[(i >> 2) * SP + g * NS + q] : 0xffffffffu;
                x[q] = (four[q] >> (8 * (i & 3))) & 0xff;
                if (x[q] >= KP) x[q] = 0;  // padding after the end: any code, the row is not used
                int lm = LAST(Mv[q]), li = LAST(Iv[q]), ld = LASTD_ROW(q);
#if W == 1
                pm[q] = __shfl_up_sync(FULL, lm, 1, T);
                pi[q] = __shfl_up_sync(FULL, li, 1, T);
                pd[q] = __shfl_up_sync(FULL, ld, 1, T);
                if (r == 0) { pm[q] = NEGINF; pi[q] = NEGINF; pd[q] = NEGINF; }
#else
                pm[q] = __shfl_up_sync(FULL, lm, 1);
                pi[q] = __shfl_up_sync(FULL, li, 1);
                pd[q] = __shfl_up_sync(FULL, ld, 1);
#if WAVE
                if (lane == 0) { pm[q] = hm; pi[q] = hi; pd[q] = hd; }
#else
                if (lane == 0) {
                    if (warp == 0 || i == 0) {
                        pm[q] = NEGINF; pi[q] = NEGINF; pd[q] = NEGINF;
                    } else {
                        pm[q] = xch[X_M + ((i - 1) & 1) * W + warp - 1];
                        pi[q] = xch[X_I + ((i - 1) & 1) * W + warp - 1];
#if DSCAN
                        pd[q] = dprev;
#else
                        pd[q] = xch[X_D + pfin * W + warp - 1];
#endif
                    }
                }
#endif
#endif
            }

            // M and I cells, the best M->E, and the M->D sources of nodes
            // 2..C of the chunk. The transition and exit scores of a node
            // are loaded once for the NS sequences.
            const int2* em[NS];
            int xe[NS];
#pragma unroll
            for (int q = 0; q < NS; q++) { em[q] = tEm + x[q] * (C * G) + r; xe[q] = NEGINF; }
            int md0 = 0;
#if DDEFER
            int dcur[NS];  // the last row's D, recomputed slot by slot
#pragma unroll
            for (int q = 0; q < NS; q++) dcur[q] = din[q];
#endif
#if LEAN
            int dz[NS];  // pass 0 of the D chain, from D(k0-1) = M(k0-1) = -INFTY
            int dzs[NS];  // its value at slot C-2 (DSHARED)
            (void)dzs;
#pragma unroll
            for (int q = 0; q < NS; q++) dz[q] = dzs[q] = NEGINF;
#endif
#pragma unroll
            for (int j = 0; j < C; j++) {
                const int4 ta = TRANS_A(j);
                const int4 tb = TRANS_B(j);
                const int esc = TRANS_E(j);
                if (j == 0) md0 = tb.x;
#if !LEAN
                dd[j] = tb.y;
#endif
#pragma unroll
                for (int q = 0; q < NS; q++) {
                    const int2 e = EMIS_AT(&em[q][j * G]);
                    int v = wadd(pm[q], ta.x);   // M(k-1) + tmm
                    v = addmax(pi[q], ta.y, v);  // I(k-1) + tim
                    v = addmax(pd[q], ta.z, v);  // D(k-1) + tdm
                    v = addmax(xb[q], ta.w, v);  // B + bsc
#if NOCLAMP
                    v = wadd(v, e.x);
                    int iv = addmax(Iv[q][j], tb.w, wadd(Mv[q][j], tb.z));
                    iv = wadd(iv, e.y);
#else
                    v = addclamp(v, e.x);
                    int iv = addmax(Iv[q][j], tb.w, wadd(Mv[q][j], tb.z));
                    iv = addclamp(iv, e.y);
#endif
                    // xe = max(xe, M + esc) in one operation; a padding
                    // slot's M never reaches E. (With C = 1 a short rank
                    // has no node at all, and the padding cells of the
                    // ranks after the last node pass garbage on to one
                    // another, which would reach E.)
#if EXTRA > 0
                    if (j == C - 1) {
                        if (!isShort) xe[q] = addmax(v, esc, xe[q]);
                    } else
#endif
                        xe[q] = addmax(v, esc, xe[q]);
#if LEAN
                    dz[q] = addmax(dz[q], tb.y, addclamp(j > 0 ? Mv[q][j - 1] : NEGINF, tb.x));
                    pm[q] = Mv[q][j]; pi[q] = Iv[q][j]; pd[q] = DGET(q, j);
                    DZSET(q, j);
#else
#if DDEFER
                    dcur[q] = addmax(dcur[q], tb.y, src[q][j]);  // (the last row's source, not yet replaced)
#endif
#if NOCLAMP
                    if (j > 0) src[q][j] = wadd(Mv[q][j - 1], tb.x);  // new M(k-1) + tmd, >= -INFTY
#else
                    if (j > 0) src[q][j] = addclamp(Mv[q][j - 1], tb.x);  // new M(k-1) + tmd, clamped
#endif
                    pm[q] = Mv[q][j]; pi[q] = Iv[q][j]; pd[q] = DPREV(q, j);
#endif
                    Mv[q][j] = v;
                    Iv[q][j] = iv;
                }
            }

            int dlast[NS], used[NS];
            bool changed = false;
#pragma unroll
            for (int q = 0; q < NS; q++) {
                // Pass 0 of the D chain, from a guessed D(k0-1) = -INFTY and
                // M(k0-1) = -INFTY (lower bounds: the true values are >= -INFTY).
#if !LEAN  // (LEAN: done in the M loop)
                src[q][0] = addclamp(NEGINF, md0);
                int d = NEGINF;
#pragma unroll
                for (int j = 0; j < C; j++) { d = addmax(d, dd[j], src[q][j]); DSET(q, j, d); }
                dlast[q] = LASTD(q);
#else
                dlast[q] = DZLAST(q);
#endif
                const int mlast = LAST(Mv[q]);

                // Exchange: the neighbour's new M(k0-1) and pass-0 D(k0-1); E
                // over the group.
                int nm, nd;
#if W == 1
#pragma unroll
                for (int o = T / 2; o > 0; o /= 2) xe[q] = max(xe[q], __shfl_xor_sync(FULL, xe[q], o, T));
                nm = __shfl_up_sync(FULL, mlast, 1, T);
                nd = __shfl_up_sync(FULL, dlast[q], 1, T);
                if (r == 0) { nm = NEGINF; nd = NEGINF; }
#elif DSCAN  // (the exchange between warps follows the warp's scan)
#pragma unroll
                for (int o = 16; o > 0; o /= 2) xe[q] = max(xe[q], __shfl_xor_sync(FULL, xe[q], o));
                nm = __shfl_up_sync(FULL, mlast, 1);
                if (lane == 0) nm = NEGINF;  // (a later warp's rank 0: after the barrier)
                nd = NEGINF;
#else
#pragma unroll
                for (int o = 16; o > 0; o /= 2) xe[q] = max(xe[q], __shfl_xor_sync(FULL, xe[q], o));
                if (lane == 31) {
                    xch[X_M + (i & 1) * W + warp] = mlast;
                    xch[X_I + (i & 1) * W + warp] = LAST(Iv[q]);
                    xch[X_D0 + warp] = dlast[q];
                }
                if (lane == 0) xch[X_XE + warp] = xe[q];
                __syncthreads();
                xe[q] = lane < W ? xch[X_XE + lane] : NEGINF;
#pragma unroll
                for (int o = 16; o > 0; o /= 2) xe[q] = max(xe[q], __shfl_xor_sync(FULL, xe[q], o));
                nm = __shfl_up_sync(FULL, mlast, 1);
                nd = __shfl_up_sync(FULL, dlast[q], 1);
                if (lane == 0) {
                    nm = warp == 0 ? NEGINF : xch[X_M + (i & 1) * W + warp - 1];
                    nd = warp == 0 ? NEGINF : xch[X_D0 + warp - 1];
                }
#endif

#if DSCAN
                // The chain in closed form: a chunk maps its incoming D to
                // out = max(A, in + B) (A: pass 0's last D or the new
                // M(k0-1) source carried along; B: the chunk's D->D sum);
                // a scan over the ranks composes the maps, then each slot
                // takes the better of its pass-0 value and the incoming D
                // carried to it. Exact where ScanMaxLen allows (header).
                {
#if W == 1
                    const int s0n = addclamp(nm, md0);  // new M(k0-1) + tmd
                    int A = addmax(s0n, cumLast, dlast[q]), B = wadd(dd[0], cumLast);
#elif WAVE
                    // The previous warp's row i (warp 0: D(0) = -INFTY and
                    // nothing before it): last M, I, D and E so far.
                    int hx = NEGINF, hy = NEGINF, hz = NEGINF, hw = NEGINF;
#if WBAR
                    if (warp > 0) {
                        WAVE_BAR_SYNC(1 + 2 * (warp - 1), 64);
                        volatile int* h = xch + X_RING + 4 * (warp - 1);
                        hx = h[0]; hy = h[1]; hz = h[2]; hw = h[3];
                        if (i + 1 < maxLen) WAVE_BAR_ARRIVE(2 + 2 * (warp - 1), 64);  // (the producer waits for rows 1..)
                    }
#else
                    if (warp > 0) {
                        volatile int* ring = xch + X_RING + 4 * WRING * (warp - 1);
                        const int row = WAVE_MUTATE == 2 ? max(i - 1, 0) : i;
                        while (xch[X_PROD + warp - 1] <= row) WAVE_SPIN();
                        __threadfence_block();
                        volatile int* h = ring + 4 * (row % WRING);
                        hx = h[0]; hy = h[1]; hz = h[2]; hw = h[3];
                        __syncwarp();
                        if (lane == 0) xch[X_CONS + warp - 1] = i + 1;
                    }
#endif
                    const int s0n = addclamp(lane == 0 ? hx : nm, md0);  // new M(k0-1) + tmd
                    if (lane == 0) { hm = hx; hi = hy; hd = hz; }
                    // From the warp's incoming D (hz, the previous warp's
                    // exact last D of this row).
                    int in;
                    const int dl = scanDExit(s0n, cumLast, dlast[q], dd[0], hz, lane, &in);  // this rank's last D
#if DDEFER
                    dout[q] = dl;
#endif
                    xe[q] = max(xe[q], hw);
#if WBAR
                    if (warp < W - 1) {
                        if (i > 0) WAVE_BAR_SYNC(2 + 2 * warp, 64);  // warp + 1 has read row i-1
                        if (lane == 31) {
                            volatile int* h = xch + X_RING + 4 * warp;
                            h[0] = mlast; h[1] = LAST(Iv[q]); h[2] = dl; h[3] = xe[q];
                        }
                        WAVE_BAR_ARRIVE(1 + 2 * warp, 64);
                    }
#else
                    if (warp < W - 1 && lane == 31) {
                        while (i - xch[X_CONS + warp] >= WRING) WAVE_SPIN();
                        volatile int* h = xch + X_RING + 4 * (WRING * warp + i % WRING);
                        h[0] = mlast; h[1] = LAST(Iv[q]); h[2] = dl; h[3] = xe[q];
                        __threadfence_block();
                        xch[X_PROD + warp] = i + 1;
                    }
#endif
#else
                    int s0n = addclamp(nm, md0);
                    int A = addmax(s0n, cumLast, dlast[q]), B = wadd(dd[0], cumLast);
                    // A later warp's rank 0 maps its first D, the warp's
                    // input X (known after the barrier), to its last.
                    if (lane == 0 && warp > 0) { A = dlast[q]; B = cumLast; }
#endif
#if !WAVE
#pragma unroll
                    for (int o = 1; o < T; o *= 2) {
                        const int a2 = __shfl_up_sync(FULL, A, o, T), b2 = __shfl_up_sync(FULL, B, o, T);
                        if (SCAN_RANK >= o) { A = addmax(a2, B, A); B = wadd(b2, B); }
                    }
#endif
#if W == 1
                    int in = __shfl_up_sync(FULL, addmax(NEGINF, B, A), 1, T);
                    if (r == 0) in = NEGINF;
#if DDEFER
                    dout[q] = addmax(NEGINF, B, A);
#endif
#elif WAVE  // (the hand-over above)
#else
                    // Lane 31 holds its warp's map from X to the warp's
                    // last D (A, B) and, with the next warp's first
                    // scores, to the next warp's first D (P, Q). One
                    // barrier; then each warp composes the maps of the
                    // warps before it: X is its input, Dp the previous
                    // warp's last D (X = Dp = -INFTY for warp 0, whose
                    // rank 0 starts from D(0) = -INFTY).
                    if (lane == 31) {
                        const int P = addmax(A, ddNext, addclamp(mlast, mdNext)), Q = wadd(B, ddNext);
                        xmap[(i & 1) * W + warp] = int4{A, B, P, Q};
                        xch[X_M + (i & 1) * W + warp] = mlast;
                        xch[X_I + (i & 1) * W + warp] = LAST(Iv[q]);
                        xch[X_XE + (i & 1) * W + warp] = xe[q];
                    }
                    __syncthreads();
                    int X = NEGINF, Dp = NEGINF;
#pragma unroll
                    for (int o = 0; o < W - 1; o++) {
                        if (o < warp) {
                            const int4 m = xmap[(i & 1) * W + o];
                            Dp = addmax(X, m.y, m.x);
                            X = addmax(X, m.w, m.z);
                        }
                    }
                    xe[q] = NEGINF;
#pragma unroll
                    for (int o = 0; o < W; o++) xe[q] = max(xe[q], (int)xch[X_XE + (i & 1) * W + o]);
                    int in = __shfl_up_sync(FULL, addmax(X, B, A), 1);
                    if (lane == 0) {
                        in = Dp;
                        if (warp > 0) s0n = addclamp(xch[X_M + (i & 1) * W + warp - 1], md0);
                    }
                    dprev = Dp;
#if DDEFER
                    dout[q] = addmax(X, B, A);
#endif
#endif
#if SCANPASS && DDEFER
                    // The D cells are computed in the next row's M loop,
                    // from in and the sources (src), as DPASS would.
                    src[q][0] = s0n;
                    din[q] = in;
#elif SCANPASS
                    src[q][0] = s0n;
                    DPASS(q, in);
#else
                    int y = addmax(in, dd[0], s0n);
                    DSET(q, 0, max(DGET(q, 0), y));
#pragma unroll
                    for (int j = 1; j < C; j++) { y = wadd(y, dd[j]); DSET(q, j, max(DGET(q, j), y)); }
#endif
                }
                (void)nd;
#else
                // Pass 1 with the true M(k0-1) and the neighbour's pass-0 D,
                // then more passes while an outgoing D changes.
                SRC0(q) = addclamp(nm, md0);
                used[q] = nd;
                DPASS(q, nd);
                const int prev = dlast[q];
                dlast[q] = LASTD(q);
                changed = changed || dlast[q] != prev;
#endif
            }
#if W == 1
            while (!DSCAN && __any_sync(FULL, changed)) {
                changed = false;
#pragma unroll
                for (int q = 0; q < NS; q++) {
                    int nd = __shfl_up_sync(FULL, dlast[q], 1, T);
                    if (r == 0) nd = NEGINF;
                    if (DEXIT || nd != used[q]) {  // (DEXIT: all lanes vote)
                        used[q] = nd;
                        DPASS(q, nd);
                        const int prev = dlast[q];
                        dlast[q] = LASTD(q);
                        changed = changed || dlast[q] != prev;
                    }
                }
            }
#elif !DSCAN
            int p = 0;
            if (lane == 31) xch[X_D + p * W + warp] = dlast[0];
            while (__syncthreads_or(changed)) {
                int nd = __shfl_up_sync(FULL, dlast[0], 1);
                if (lane == 0) nd = warp == 0 ? NEGINF : xch[X_D + p * W + warp - 1];
                changed = false;
                if (DEXIT || nd != used[0]) {  // (DEXIT: all lanes vote)
                    used[0] = nd;
                    DPASS(0, nd);
                    const int prev = dlast[0];
                    dlast[0] = LASTD(0);
                    changed = dlast[0] != prev;
                }
                p ^= 1;
                if (lane == 31) xch[X_D + p * W + warp] = dlast[0];
            }
            pfin = p;
#endif

            // Special states, in HMMER2's order, while the sequence lasts.
#pragma unroll
            for (int q = 0; q < NS; q++) {
                if (i < len[q]) {
#if WAVE  // (B speculated from N; the last warp, with E over the row, checks J)
#if NOCLAMP
                    xn[q] = wadd(xn[q], nloop);
                    const int bn = wadd(xn[q], nmove);
#else
                    xn[q] = max(wadd(xn[q], nloop), NEGINF);
                    const int bn = max(wadd(xn[q], nmove), NEGINF);
#endif
                    xj[q] = max(max(wadd(xj[q], jloop), NEGINF), wadd(xe[q], eloop));
                    bad = bad || (WAVE_MUTATE != 1 && wadd(xj[q], jmove) > bn);
                    xb[q] = bn;
#if NOCLAMP
                    xc[q] = max(wadd(xc[q], cloop), wadd(xe[q], emove));
#else
                    xc[q] = max(max(wadd(xc[q], cloop), NEGINF), wadd(xe[q], emove));
#endif
#elif NOCLAMP  // (N, B and C at or above -INFTY; J keeps its clamp)
                    xn[q] = wadd(xn[q], nloop);
                    xj[q] = max(max(wadd(xj[q], jloop), NEGINF), wadd(xe[q], eloop));
                    xb[q] = max(wadd(xn[q], nmove), wadd(xj[q], jmove));
                    xc[q] = max(wadd(xc[q], cloop), wadd(xe[q], emove));
#else
                    xn[q] = max(wadd(xn[q], nloop), NEGINF);
                    xj[q] = max(max(wadd(xj[q], jloop), NEGINF), wadd(xe[q], eloop));
                    xb[q] = max(max(wadd(xn[q], nmove), NEGINF), wadd(xj[q], jmove));
                    xc[q] = max(max(wadd(xc[q], cloop), NEGINF), wadd(xe[q], emove));
#endif
                }
            }
        }
#if WAVE
        // The last warp has E over every row: its score, or the block on
        // the list for the exact build. The ring's counts are reset for
        // the next block after every warp is past its last row.
        if (r == G - 1 && active[0]) {
            out[seq[0]] = wadd(xc[0], cmove);
            if (bad) ftab[atomicAdd(nflag, 1u)] = *blk;
        }
        __syncthreads();
#else
#pragma unroll
        for (int q = 0; q < NS; q++)
            if (r == 0 && active[q]) {
                out[seq[q]] = wadd(xc[q], cmove);
            }
#endif
    }
}
#endif  // !STRIP

#if STRIP
// Vertical strips (STRIP, with WAVE's speculated B). The nodes are laid
// out as for a group of W warps (rank r = 32 * strip + lane), but ONE
// warp scores the whole sequence: it runs every row over strip 0's
// nodes, then every row over strip 1's, and so on. With B speculated
// from N (B_i = N_i + N->B, as the wavefront does) nothing of strip s+1
// feeds back into strip s, so the warps of a block never wait for one
// another: no barrier, no shared memory. Between strips each row's
// boundary record (the strip's last node's new M, I and D of that row,
// and the E maximum of the strips so far) goes through a global scratch
// of `rows` int4 a warp (one warp's rows of 16 bytes, read back one strip
// later: mostly L2 hits). Lane 31 stores a row's record as the row ends;
// the next strip loads 32 records at once (one a lane, 512 contiguous
// bytes, fetched 32 rows ahead) and row i takes its record from lane
// i % 32 by shuffles (with STRIP_RECSH, auto's: from a ring in shared
// memory instead, above). The record is the one the wavefront hands over, so
// the cells are the wavefront's: exact while B = N + N->B held. The last
// strip has E over the row: it computes J and C and checks J + J->B <=
// N + N->B at every row (induction over rows as for the wavefront); a
// sequence where the check fails, or longer than the scratch, is listed
// in ftab for the exact build (the W-warp group without WAVE).
//
// With EMIS_SHARED the block's warps (each with its own sequence) run
// strip by strip together: between two barriers they copy the strip's
// emission scores (KP*C*32 int2, 96 KiB at C = 16) to shared memory, so
// a cell reads them from there as a one-warp shape does; a warp without
// a sequence still takes part in the copies and barriers.
//
// Lane chains (STRIP_LC): no E reduction a row, no E in the record.
// Every lane of every strip runs its own J and C chains from its own E
// maximum E^sl_i (over its nodes, from -INFTY as HMMER2's E), J^sl_i =
// max(J^sl_{i-1} + J->J, -INFTY, E^sl_i + E->J) and C^sl likewise, and
// checks J^sl_i + J->B <= N_i + N->B itself; a register keeps the
// maximum of the strips' C chains, reduced over the lanes once a target,
// and the checks are one vote. This is the one-strip kernel's argument
// over strips and lanes together: E_i = max_sl E^sl_i, and adding a
// score commutes with a maximum where no sum wraps, so by induction over
// the rows max_sl J^sl_i = J_i and max_sl C^sl_L = C_L (with NOCLAMP
// the chains' unclamped C, whose maximum is the unclamped C the last
// strip ran before, where no clamp binds); and J_i + J->B > N_i + N->B
// exactly when some chain's check fails. Speculation: while no chain
// failed before row i, row i's cells are HMMER2's in every strip, so are
// its chains, and the first row where HMMER2's J beats N + N->B fails a
// check of some strip (the vote ORs the strips' and lanes' checks). No
// sum wraps under the scan's bounds (ScanMaxLen): E^sl and J^sl are at
// least -INFTY, C^sl at least -INFTY + E->C (finite), cells below 2^31 -
// 2^25, and a score within 2^24 or -INFTY (J->J, E->J, J->B, C->C) added
// to a value >= -INFTY - 2^24 stays above -2^31.
#if W > 1
extern "C" __global__ void H2VIT_BOUNDS
h2vit_kernel(const int4* __restrict__ gA, const int4* __restrict__ gB, const int* __restrict__ gE,
             const int2* __restrict__ gEmis, const unsigned char* __restrict__ res,
             const Block* __restrict__ blocks, int nblocks, unsigned int* next,
             const int* __restrict__ xsc, int* __restrict__ out, Block* __restrict__ ftab, unsigned* nflag,
             int4* scratch, int rows)
{
    const int nloop = xsc[0], nmove = xsc[1], eloop = xsc[2], emove = xsc[3];
    const int cloop = xsc[4], cmove = xsc[5], jloop = xsc[6], jmove = xsc[7];
    const int lane = threadIdx.x & 31;
    // This warp's records: rows int4 (the host sizes the scratch for
    // every warp of the grid).
    int4* rec = scratch + (long long)(blockIdx.x * (BLOCK / 32) + (threadIdx.x >> 5)) * rows;
#if EMIS_SHARED
    int2* sEm = (int2*)SHARED_BASE;  // the current strip's emission scores
#endif
#if STRIP_RECSH
    // The warps' rings of records, after the emissions, then (STRIP_RW)
    // their rings of residues. This warp's: row i's record in slot i % 64,
    // its residue in byte i % 64.
    int4* rings = (int4*)(SHARED_BASE + (EMIS_SHARED ? 8 * KP * C * 32 : 0));
    int4* ring = rings + (threadIdx.x >> 5) * 64;
    u32* rw = (u32*)(rings + BLOCK / 32 * 64) + (threadIdx.x >> 5) * 16;
#endif

    for (;;) {
        int b = 0;
        if (lane == 0) b = (int)atomicAdd(next, 1u);
        b = __shfl_sync(FULL, b, 0);
#if EMIS_SHARED
        // (The block goes on while a warp has work; a warp without a
        // target runs the strips' copies and barriers only.)
        const bool have = b < nblocks;
        if (!__syncthreads_or(have)) return;
        const Block* blk = &blocks[have ? b : 0];  // (T = 32: one target a block)
        bool run = have && blk->nseq > 0;
        const int L = run ? blk->len[0] : 0;
        if (run && L > rows) {  // longer than the scratch: the exact build scores it
            if (lane == 0) ftab[atomicAdd(nflag, 1u)] = *blk;
            run = false;
        }
#else  // (the text measured before EMIS_SHARED: 47ac987)
        if (b >= nblocks) return;
        const Block* blk = &blocks[b];  // (T = 32: one target a block)
        if (blk->nseq < 1) continue;
        const int L = blk->len[0];
        if (L > rows) {  // longer than the scratch: the exact build scores it
            if (lane == 0) ftab[atomicAdd(nflag, 1u)] = *blk;
            continue;
        }
#endif
        const u32* words = (const u32*)(res + blk->off);
        bool bad = false;
        int xc = NEGINF;
#if STRIP_LC
        int xcs = NEGINF;  // the maximum of the strips' C chains (this lane's)
#endif

        // A strip's rows, its ranks CC slots each: C, or with STRIP_SHORT
        // C - 1 in a strip whose ranks are all short (strip * 32 >= EXTRA),
        // which then skips the padding slot every one of its lanes has: the
        // strip's code, a generic lambda, is built for both (and with
        // STRIP_FL for the first and the last strip apart). Without either
        // it is the loop's body, as measured before.
#if STRIP_SHORT || STRIP_FL
#define STRIP_SKIP return
        auto stripRows = [&](auto cc, auto pos, const int strip) {  // (device code: NVRTC builds with -default-device)
            constexpr int CC = decltype(cc)::value;
            constexpr int POS = decltype(pos)::value;  // 1: the first strip, 2: the last, 0: by strip
#else
#define STRIP_SKIP continue
        for (int strip = 0; strip < W; strip++) {
            constexpr int CC = C;
            constexpr int POS = 0;
#endif
            constexpr bool XT = EXTRA > 0 && CC == C;  // (some ranks of C - 1 nodes)
#define LASTS(a) (isShort ? a[CC > 1 ? CC - 2 : 0] : a[CC - 1])
#if EMIS_SHARED
            // The block's warps run strip by strip together: the
            // strip's emission scores, (x*C + j)*32 + lane, are copied
            // to shared memory between two barriers.
            __syncthreads();  // (every warp is done with the last strip's)
#if STRIP_EA
            // (STRIP_EA: 16 bytes a copy, cp.async without registers, so
            // a thread's copies are all in flight at once; k even and G a
            // multiple of 32 keep both ends 16-byte aligned.)
            for (int k = 2 * threadIdx.x; k < KP * C * 32; k += 2 * BLOCK)
                copyAsync16((int4*)(sEm + k), (const int4*)(gEmis + (k >> 5) * G + strip * 32 + (k & 31)));
            commitAsync();
            waitAsyncAll();
#else
            for (int k = threadIdx.x; k < KP * C * 32; k += BLOCK) sEm[k] = gEmis[(k >> 5) * G + strip * 32 + (k & 31)];
#endif
            __syncthreads();
            if (!run) STRIP_SKIP;
#endif
            const int r = strip * 32 + lane;
            const bool isShort = XT && r >= EXTRA;
            (void)isShort;
            const bool first = POS == 1 || (POS == 0 && strip == 0), last = POS == 2 || (POS == 0 && strip == W - 1);
            int4 rA[CC], rB[CC];
            int rE[CC];
#pragma unroll
            for (int j = 0; j < CC; j++) { rA[j] = gA[j * G + r]; rB[j] = gB[j * G + r]; rE[j] = gE[j * G + r]; }
            int cumLast = 0;  // the D->D sum over the real slots after the first
#pragma unroll
            for (int j = 1; j < CC; j++)
                if (j < CC - 1 || !isShort) cumLast = wadd(cumLast, rB[j].y);
#if STRIP_BS
            int bs[6];  // the scan's D->D sums, step by step
            scanDDSums(wadd(rB[0].y, cumLast), lane, bs, 6);
#endif
            int Mv[CC], Iv[CC], src[CC];
#if !DDEFER
            int Dv[CC];
#endif
#pragma unroll
            for (int j = 0; j < CC; j++) {
                Mv[j] = NEGINF; Iv[j] = NEGINF; src[j] = NEGINF;
#if !DDEFER
                Dv[j] = NEGINF;
#endif
            }
            int din = NEGINF, dout = NEGINF;  // the last row's incoming D and last real node's D
            int xn = 0, xb = nmove, xj = NEGINF;
            xc = NEGINF;
            int hm = NEGINF, hi = NEGINF, hd = NEGINF;  // the previous strip's boundary of the last row
#if STRIP_NR
            int nmRow = NEGINF;  // the last row's M(k0-1)
            (void)hm;
            (void)hd;
#endif
#if !STRIP_RECSH
            int4 cur, nxt;
            cur.x = cur.y = cur.z = cur.w = NEGINF;
            nxt = cur;
#endif
            __syncwarp();  // (the previous strip's records are stored)
#if STRIP_RW
            // Rows 0-31 and 32-63, a group each: records (not in strip
            // 0) and residue words (in every strip).
            ringGroup(ring, rec, rw, words, 0, L, lane, !first);
            ringGroup(ring, rec, rw, words, 32, L, lane, !first);
#elif STRIP_RECSH
            if (!first) {  // rows 0-31 and 32-63, a group each
                ringGroup(ring, rec, rw, words, 0, L, lane, true);
                ringGroup(ring, rec, rw, words, 32, L, lane, true);
            }
#else
            if (!first && lane < L) nxt = __ldcg(rec + lane);
#endif
            u32 four = 0;

#pragma unroll(STRIP_U2 && CC <= STRIP_U2_MAXC ? 2 : 1)
            for (int i = 0; i < L; i++) {
#if STRIP_RW
                (void)four;
                ringRow(ring, rec, rw, words, i, L, lane, !first);
                int x = ((const unsigned char*)rw)[(STRIP_MUTATE == 9 ? i + 1 : i) & 63];
#else
                if ((i & 3) == 0) four = words[i >> 2];
                int x = (four >> (8 * (i & 3))) & 0xff;
#endif
                if (x >= KP) x = 0;
                // Row i's record from the previous strip (strip 0: D(0) =
                // -INFTY and nothing before it).
                int hx = NEGINF, hy = NEGINF, hz = NEGINF;
#if !STRIP_LC
                int hw = NEGINF;
#endif
                if (!first) {
#if STRIP_RECSH
#if !STRIP_RW  // (STRIP_RW refilled the ring above, in every strip)
                    ringRow(ring, rec, rw, words, i, L, lane, true);
#endif
                    const int4 h = ring[(STRIP_MUTATE == 2 ? i + 63 : i) & 63];
                    hx = h.x; hy = h.y; hz = h.z;
#if !STRIP_LC
                    hw = STRIP_MUTATE == 3 ? NEGINF : h.w;
#endif
#else
                    if ((i & 31) == 0) {
                        cur = nxt;
                        if (i + 32 + lane < L) nxt = __ldcg(rec + i + 32 + lane);
                    }
                    const int k = STRIP_MUTATE == 2 ? ((i + 31) & 31) : (i & 31);
                    hx = __shfl_sync(FULL, cur.x, k);
                    hy = __shfl_sync(FULL, cur.y, k);
                    hz = __shfl_sync(FULL, cur.z, k);
#if !STRIP_LC
                    hw = STRIP_MUTATE == 3 ? NEGINF : __shfl_sync(FULL, cur.w, k);
#endif
#endif
                }
#if DDEFER
                const int ldRow = dout;
#else
                const int ldRow = LASTS(Dv);
#endif
#if STRIP_NR
                (void)ldRow;
                int pm = nmRow, pd = din;  // (the shuffles of the last row's end)
                int pi = __shfl_up_sync(FULL, LASTS(Iv), 1);
                if (lane == 0) pi = hi;
#else
                int pm = __shfl_up_sync(FULL, LASTS(Mv), 1);
                int pi = __shfl_up_sync(FULL, LASTS(Iv), 1);
                int pd = __shfl_up_sync(FULL, ldRow, 1);
                if (lane == 0) { pm = hm; pi = hi; pd = hd; }
#endif

                // M and I cells, the best M->E, the M->D sources, and
                // pass 0 of the D chain from D(k0-1) = M(k0-1) = -INFTY.
#if EMIS_SHARED
                const int2* em = sEm + x * (C * 32) + lane;
#define STRIP_EM_STRIDE 32
#else
                const int2* em = gEmis + x * (C * G) + r;
#define STRIP_EM_STRIDE G
#endif
                int xe = NEGINF;
                const int md0 = rB[0].x;
#if DDEFER
                int dcur = din;  // the last row's D, recomputed slot by slot
#endif
#pragma unroll
                for (int j = 0; j < CC; j++) {
                    const int4 ta = rA[j];
                    const int4 tb = rB[j];
                    const int2 e = EMIS_AT(&em[j * STRIP_EM_STRIDE]);
                    int v = wadd(pm, ta.x);   // M(k-1) + tmm
                    v = addmax(pi, ta.y, v);  // I(k-1) + tim
                    v = addmax(pd, ta.z, v);  // D(k-1) + tdm
                    v = addmax(xb, ta.w, v);  // B + bsc
#if NOCLAMP
                    v = wadd(v, e.x);
                    int iv = addmax(Iv[j], tb.w, wadd(Mv[j], tb.z));
                    iv = wadd(iv, e.y);
#else
                    v = addclamp(v, e.x);
                    int iv = addmax(Iv[j], tb.w, wadd(Mv[j], tb.z));
                    iv = addclamp(iv, e.y);
#endif
                    if (XT && j == CC - 1) {
                        if (!isShort) xe = addmax(v, rE[j], xe);
                    } else
                        xe = addmax(v, rE[j], xe);
#if DDEFER
                    dcur = addmax(dcur, tb.y, src[j]);  // (the last row's source, not yet replaced)
                    pd = dcur;
#else
                    pd = Dv[j];
#endif
#if NOCLAMP
                    if (j > 0) src[j] = wadd(Mv[j - 1], tb.x);  // new M(k-1) + tmd, >= -INFTY
#else
                    if (j > 0) src[j] = addclamp(Mv[j - 1], tb.x);  // new M(k-1) + tmd, clamped
#endif
                    pm = Mv[j]; pi = Iv[j];
                    Mv[j] = v;
                    Iv[j] = iv;
                }
                int dz[CC];  // pass 0 (only its last real node's value is used)
                {
                    int d = NEGINF;
#pragma unroll
                    for (int j = 0; j < CC; j++) { d = addmax(d, rB[j].y, j == 0 ? addclamp(NEGINF, md0) : src[j]); dz[j] = d; }
                }
                const int dlast = LASTS(dz);
                const int mlast = LASTS(Mv);
#if !STRIP_LC
#pragma unroll
                for (int o = 16; o > 0; o /= 2) xe = max(xe, __shfl_xor_sync(FULL, xe, o));
#endif

                // The D chain by the scan of the chunks' maps, from the
                // previous strip's exact last D of this row (hz).
                int nm = __shfl_up_sync(FULL, mlast, 1);
                if (lane == 0) { nm = hx; hm = hx; hi = hy; hd = hz; }
                const int s0n = addclamp(nm, md0);  // new M(k0-1) + tmd
                int in;
#if STRIP_NR
                nmRow = nm;
#endif
#if STRIP_BS
                const int dl = scanDExitB(s0n, cumLast, dlast, bs, hz, lane, &in);  // this rank's last D
#else
                const int dl = scanDExit(s0n, cumLast, dlast, rB[0].y, hz, lane, &in);  // this rank's last D
#endif
                dout = dl;
#if !STRIP_LC
                xe = max(xe, hw);
#endif
                {
                    int4 o;  // (STRIP_LC: no E crosses strips, o.w is not read)
                    o.x = mlast; o.y = LASTS(Iv); o.z = dl;
                    o.w = STRIP_LC ? NEGINF : xe;
#if STRIP_PS
                    storeIf16(!last && lane == (STRIP_MUTATE == 8 ? 30 : 31), rec + i, o);
#else
                    if (!last && lane == 31) __stcg(rec + i, o);
#endif
                }
                src[0] = s0n;
#if DDEFER
                din = in;  // (the D cells follow in the next row's M loop)
#else
                {
                    int d = in;
#pragma unroll
                    for (int j = 0; j < CC; j++) { d = addmax(d, rB[j].y, src[j]); Dv[j] = d; }
                }
#endif

                // Special states, B speculated from N; the last strip,
                // with E over the row, computes J and C and checks J
                // (STRIP_LC: every strip, each lane from its own E).
#if NOCLAMP
                xn = wadd(xn, nloop);
                const int bn = wadd(xn, nmove);
#else
                xn = max(wadd(xn, nloop), NEGINF);
                const int bn = max(wadd(xn, nmove), NEGINF);
#endif
                if (STRIP_LC || last) {
                    xj = max(max(wadd(xj, jloop), NEGINF), wadd(xe, eloop));
                    bad = bad || (STRIP_MUTATE != 1 && (STRIP_MUTATE != 7 || last) && wadd(xj, jmove) > bn);
#if NOCLAMP
                    xc = max(wadd(xc, cloop), wadd(xe, emove));
#else
                    xc = max(max(wadd(xc, cloop), NEGINF), wadd(xe, emove));
#endif
                }
                xb = bn;
            }
#if STRIP_LC
            xcs = STRIP_MUTATE == 6 ? xc : max(xcs, xc);
#endif
#undef LASTS
#if STRIP_SHORT || STRIP_FL
        };
        auto runStrip = [&](auto pos, const int strip) {
#if STRIP_SHORT  // (STRIP_MUTATE 10: also the last strip with long ranks)
            if ((strip + (STRIP_MUTATE == 10)) * 32 >= EXTRA)
                stripRows(IntC<C - 1>{}, pos, strip);
            else
#endif
                stripRows(IntC<C>{}, pos, strip);
        };
        for (int strip = 0; strip < W; strip++) {
#if STRIP_FL
            if (strip == 0)
                runStrip(IntC<1>{}, strip);
            else if (strip == W - 1)
                runStrip(IntC<2>{}, strip);
            else
#endif
                runStrip(IntC<0>{}, strip);
        }
#else
        }
#endif
#undef STRIP_SKIP
#if STRIP_LC
        // C over the strips and lanes, the checks by one vote (mutations
        // 4 and 5: lane 0's alone).
#pragma unroll
        for (int o = 16; o > 0; o /= 2)
            if (STRIP_MUTATE != 4) xcs = max(xcs, __shfl_xor_sync(FULL, xcs, o));
        if (STRIP_MUTATE != 5) bad = __any_sync(FULL, bad);
        xc = xcs;
#endif
        // Every lane holds the same xc and check (without STRIP_LC: E is
        // warp-wide).
#if EMIS_SHARED
        if (run && lane == 0) {
#else
        if (lane == 0) {
#endif
            out[blk->seq[0]] = wadd(xc, cmove);
            if (bad) ftab[atomicAdd(nflag, 1u)] = *blk;
        }
    }
}
#else  // W == 1
// One strip (W == 1, M <= 32 C): the speculated B alone. Row i+1's M
// cells need B_i, which HMMER2 takes through J from E over row i: with
// W == 1 that chain (E's reduction, J, B) is the one-warp kernel's
// latency every row. Here B_i = N_i + N->B is known before the row, so
// the next row's cells start at once while J, C and the check overlap
// them. The kernel is the strip kernel above with its only strip both
// the first and the last: nothing enters from a strip before (D(0) =
// M(0) = -INFTY), no record is stored, no scratch is read. With
// EMIS_SHARED the block copies the emission table once and its warps
// then run independently.
//
// Two sequences a warp (NS == 2): every lane carries both sequences'
// cells of its C nodes and loads their transitions once; the two rows'
// D-chain scans and special states are independent chains the
// scheduler interleaves. The packed block holds both (gpudb with T/NS
// threads a target: residue words interleaved), the rows run to the
// longer one, and a sequence past its end computes cells no one reads
// (its special states stop, as in the one-warp kernel). The block is
// listed when either check fails; the exact build (the one-warp kernel
// with NS sequences a thread) scores both.
//
// Per row a lane does little besides its cells:
//   - No E reduction. Each lane keeps its own J and C from its own E
//     maximum (J^l_i = max(J^l_{i-1} + J->J, E^l_i + E->J, -INFTY), C
//     likewise) and checks J^l + J->B <= B itself; C is reduced over
//     the lanes once, after the last row, and the checks by one vote.
//     Adding a constant commutes with a maximum where no sum wraps, so
//     max over lanes of J^l is HMMER2's J at every row (induction) and
//     the checks fail together with HMMER2's: the scan build's bounds
//     (ScanMaxLen) keep every cell within (-INFTY - 2^25, 2^31 - 2^25)
//     and every score within 2^24 or -INFTY (E->J, J->J, J->B, C->C),
//     and a sum of two values >= -INFTY - 2^25 stays above -2^31.
//   - The scan's D->D sums are the model's, the same every row: each
//     lane computes its B before every step of the scan once a block,
//     and a row's scan shuffles only A.
//   - The neighbour's last D and new M of a row are the scan's incoming
//     D and the shuffled new M the scan already needs, so the next row
//     takes them as they are (only its I is shuffled).
//   - A target's next residue word is loaded four rows ahead.
extern "C" __global__ void H2VIT_BOUNDS
h2vit_kernel(const int4* __restrict__ gA, const int4* __restrict__ gB, const int* __restrict__ gE,
             const int2* __restrict__ gEmis, const unsigned char* __restrict__ res,
             const Block* __restrict__ blocks, int nblocks, unsigned int* next,
             const int* __restrict__ xsc, int* __restrict__ out, Block* __restrict__ ftab, unsigned* nflag,
             int4* scratch, int rows)
{
    (void)scratch;
    (void)rows;
    const int nloop = xsc[0], nmove = xsc[1], eloop = xsc[2], emove = xsc[3];
    const int cloop = xsc[4], cmove = xsc[5], jloop = xsc[6], jmove = xsc[7];
    const int lane = threadIdx.x & 31;
    const bool isShort = EXTRA > 0 && lane >= EXTRA;
    (void)isShort;
#if EMIS_SHARED
    int2* sEm = (int2*)SHARED_BASE;  // the emission table, (x*C + j)*32 + lane
    for (int k = threadIdx.x; k < KP * C * 32; k += BLOCK) sEm[k] = gEmis[k];
    __syncthreads();
#define STRIP_EM_STRIDE 32
#else
#define STRIP_EM_STRIDE G
#endif

    for (;;) {
        int b = 0;
        if (lane == 0) b = (int)atomicAdd(next, 1u);
        b = __shfl_sync(FULL, b, 0);
        if (b >= nblocks) return;
        const Block* blk = &blocks[b];  // (NS targets a block)
        const int nq = blk->nseq;
        if (nq < 1) continue;
        int len[NS];
        int L = 0;  // the rows to run
#pragma unroll
        for (int q = 0; q < NS; q++) {
            len[q] = q < nq ? blk->len[q] : 0;
            L = max(L, len[q]);
        }
        const u32* words = (const u32*)(res + blk->off);
        bool bad = false;

        int4 rA[C], rB[C];
        int rE[C];
#pragma unroll
        for (int j = 0; j < C; j++) { rA[j] = gA[j * G + lane]; rB[j] = gB[j * G + lane]; rE[j] = gE[j * G + lane]; }
        int cumLast = 0;  // the D->D sum over the real slots after the first
#pragma unroll
        for (int j = 1; j < C; j++)
            if (j < C - 1 || !isShort) cumLast = wadd(cumLast, rB[j].y);
        const int md0 = rB[0].x, dd0 = rB[0].y;
        // The scan's D->D sums: ddB[s] is this lane's before step s.
        int ddB[5];
        scanDDSums(wadd(dd0, cumLast), lane, ddB, 5);
        int Mv[NS][C], Iv[NS][C], src[NS][C];
#if !DDEFER
        int Dv[NS][C];
#endif
        // The neighbour's last new M and the D entering this lane, both
        // from the last row's scan (-INFTY on lane 0 and before row 0).
        int mup[NS], din[NS];
        int xn[NS], xb[NS], xj[NS], xc[NS];  // (xj, xc: this lane's, from its E)
        u32 four[NS], nextFour[NS];
#pragma unroll
        for (int q = 0; q < NS; q++) {
#pragma unroll
            for (int j = 0; j < C; j++) {
                Mv[q][j] = NEGINF; Iv[q][j] = NEGINF; src[q][j] = NEGINF;
#if !DDEFER
                Dv[q][j] = NEGINF;
#endif
            }
            mup[q] = din[q] = NEGINF;
            xn[q] = 0; xb[q] = nmove; xj[q] = NEGINF; xc[q] = NEGINF;
            four[q] = 0;
            nextFour[q] = q < nq && L > 0 ? words[q] : 0xffffffffu;
        }

        for (int i = 0; i < L; i++) {
            int x[NS], pm[NS], pi[NS], pd[NS];
#pragma unroll
            for (int q = 0; q < NS; q++) {
                if ((i & 3) == 0) {
                    four[q] = nextFour[q];
                    if (q < nq && i + 4 < L) nextFour[q] = words[((i >> 2) + 1) * NS + q];
                }
                x[q] = (four[q] >> (8 * (i & 3))) & 0xff;
                if (x[q] >= KP) x[q] = 0;  // (past a shorter target's end: the row is not used)
                pm[q] = mup[q];
                pd[q] = din[q];
                pi[q] = __shfl_up_sync(FULL, LAST(Iv[q]), 1);
                if (lane == 0) pi[q] = NEGINF;
            }

            // M and I cells, this lane's best M->E, the M->D sources, and
            // pass 0 of the D chain from D(k0-1) = M(k0-1) = -INFTY (d0,
            // to the last real node). A node's transitions are loaded
            // once for the NS targets.
            const int2* em[NS];
            int xe[NS], d0[NS];
#if DDEFER
            int dcur[NS];  // the last row's D, recomputed slot by slot
#endif
#pragma unroll
            for (int q = 0; q < NS; q++) {
#if EMIS_SHARED
                em[q] = sEm + x[q] * (C * 32) + lane;
#else
                em[q] = gEmis + x[q] * (C * G) + lane;
#endif
                xe[q] = NEGINF;
                d0[q] = addmax(NEGINF, dd0, addclamp(NEGINF, md0));
#if DDEFER
                dcur[q] = din[q];
#endif
            }
#pragma unroll
            for (int j = 0; j < C; j++) {
                const int4 ta = rA[j];
                const int4 tb = rB[j];
                const int te = rE[j];
#pragma unroll
                for (int q = 0; q < NS; q++) {
                    const int2 e = EMIS_AT(&em[q][j * STRIP_EM_STRIDE]);
                    int v = wadd(pm[q], ta.x);   // M(k-1) + tmm
                    v = addmax(pi[q], ta.y, v);  // I(k-1) + tim
                    v = addmax(pd[q], ta.z, v);  // D(k-1) + tdm
                    v = addmax(xb[q], ta.w, v);  // B + bsc
#if NOCLAMP
                    v = wadd(v, e.x);
                    int iv = addmax(Iv[q][j], tb.w, wadd(Mv[q][j], tb.z));
                    iv = wadd(iv, e.y);
#else
                    v = addclamp(v, e.x);
                    int iv = addmax(Iv[q][j], tb.w, wadd(Mv[q][j], tb.z));
                    iv = addclamp(iv, e.y);
#endif
#if EXTRA > 0
                    if (j == C - 1) {
                        if (!isShort) xe[q] = addmax(v, te, xe[q]);
                    } else
#endif
                        xe[q] = addmax(v, te, xe[q]);
#if DDEFER
                    dcur[q] = addmax(dcur[q], tb.y, src[q][j]);  // (the last row's source, not yet replaced)
                    pd[q] = dcur[q];
#else
                    pd[q] = Dv[q][j];
#endif
                    if (j > 0) {
#if NOCLAMP
                        src[q][j] = wadd(Mv[q][j - 1], tb.x);  // new M(k-1) + tmd, >= -INFTY
#else
                        src[q][j] = addclamp(Mv[q][j - 1], tb.x);  // new M(k-1) + tmd, clamped
#endif
#if EXTRA > 0
                        if (j < C - 1 || !isShort)
#endif
                            d0[q] = addmax(d0[q], tb.y, src[q][j]);
                    }
                    pm[q] = Mv[q][j]; pi[q] = Iv[q][j];
                    Mv[q][j] = v;
                    Iv[q][j] = iv;
                }
            }

            // The D chain by the scan of the chunks' maps from D(0) =
            // -INFTY (scanDExit with the D->D sums ddB; its last term,
            // -INFTY plus the D->D sum up to this lane, is below A, which
            // is at least -INFTY, and drops out).
#pragma unroll
            for (int q = 0; q < NS; q++) {
                int nm = __shfl_up_sync(FULL, LAST(Mv[q]), 1);
                if (lane == 0) nm = NEGINF;
                mup[q] = nm;
                const int s0n = addclamp(nm, md0);  // new M(k0-1) + tmd
                int A = addmax(s0n, cumLast, d0[q]);
#pragma unroll
                for (int s = 0; s < 5; s++) {
                    const int a2 = __shfl_up_sync(FULL, A, 1 << s);
                    if (lane >= (1 << s)) A = addmax(a2, ddB[s], A);
                }
                int in = __shfl_up_sync(FULL, A, 1);  // (A: this lane's last D)
                if (lane == 0) in = NEGINF;
                din[q] = in;
                src[q][0] = s0n;
#if !DDEFER
                int d = in;
#pragma unroll
                for (int j = 0; j < C; j++) { d = addmax(d, rB[j].y, src[q][j]); Dv[q][j] = d; }
#endif
            }

            // Special states while the target lasts, B speculated from N;
            // J and C from this lane's E, and its check.
#pragma unroll
            for (int q = 0; q < NS; q++) {
                if (i < len[q]) {
#if NOCLAMP
                    xn[q] = wadd(xn[q], nloop);
                    const int bn = wadd(xn[q], nmove);
#else
                    xn[q] = max(wadd(xn[q], nloop), NEGINF);
                    const int bn = max(wadd(xn[q], nmove), NEGINF);
#endif
                    xj[q] = max(max(wadd(xj[q], jloop), NEGINF), wadd(xe[q], eloop));
                    bad = bad || (STRIP_MUTATE != 1 && wadd(xj[q], jmove) > bn);
#if NOCLAMP
                    xc[q] = max(wadd(xc[q], cloop), wadd(xe[q], emove));
#else
                    xc[q] = max(max(wadd(xc[q], cloop), NEGINF), wadd(xe[q], emove));
#endif
                    xb[q] = bn;
                }
            }
        }
        // C over the lanes (STRIP_MUTATE 4: lane 0's alone), the checks by
        // one vote (STRIP_MUTATE 5: lane 0's alone).
#pragma unroll
        for (int q = 0; q < NS; q++)
#pragma unroll
            for (int o = 16; o > 0; o /= 2)
                if (STRIP_MUTATE != 4) xc[q] = max(xc[q], __shfl_xor_sync(FULL, xc[q], o));
        if (STRIP_MUTATE != 5) bad = __any_sync(FULL, bad);
        if (lane == 0) {
#pragma unroll
            for (int q = 0; q < NS; q++)
                if (q < nq) out[blk->seq[q]] = wadd(xc[q], cmove);
            if (bad) ftab[atomicAdd(nflag, 1u)] = *blk;
        }
    }
}
#endif
#endif  // STRIP
