package gpu

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/hmmgo/hmmgo/hmmer2/plan7"
)

// negInf is HMMER2's -INFTY.
const negInf = -plan7.Infty

// Shape is how viterbi.cu is specialised for a model length: T threads
// of a warp per sequence (W == 1, 32/T sequences per warp), or W warps
// (a whole block) per sequence; C nodes per thread, the first Extra
// threads of a group having C and the others C-1 when the nodes do not
// divide evenly; NS sequences per thread (one-warp shapes), which share
// the transition scores' shared-memory loads; NGrp groups per block
// (multi-warp shapes), which share the shared-memory tables.
type Shape struct {
	T, W, C, Extra int
	NS             int // sequences per thread (0 means 1)
	NGrp           int // groups per block, multi-warp shapes (0 means 1)
	Block          int
	TransShared    bool // transition table copied to shared memory
	TransReg       bool // each thread's transitions kept in registers
	EmisShared     bool // emission table copied to shared memory
	DExit          bool // D passes after the first stop where nothing changes
	Lean           bool // no M->D source and D->D arrays (3C registers of state)
	DShared        bool // D cells in shared memory (with Lean, 2C registers of state)
	MinBlocks      int  // __launch_bounds__' minimum blocks per multiprocessor (0: none)
	EmisHint       int  // global emission loads: 0 read-only cache, 1 L2 only, 2 evict-first
	Carveout       int  // preferred shared-memory carveout in percent (0: the driver's)
	DScan          bool // one warp, no lean state: the D chain by a scan over the ranks (ScanMaxLen)
	NoClamp        bool // with DScan: no -INFTY clamps where none can bind (ClampFreeMaxLen)
	ScanPass       bool // with DScan: the D cells by one pass from the scan's incoming D
	DDefer         bool // with ScanPass: that pass run in the next row's M loop
	// Wave: with ScanPass and W > 1 or Strip (one group a block, NS = 1): warps
	// run as a wavefront, B speculated from N and checked by the last
	// warp; sequences where the check fails are scored again by the same
	// shape without Wave (viterbi.cu, "Warps as a wavefront").
	Wave      bool
	WaveRing  int  // rows a warp may run ahead of the next (0: viterbi.cu's 4)
	WaveSleep int  // nanoseconds a waiting warp sleeps between looks (0: it spins)
	WaveBar   bool // named barriers hand over one row (WaveRing 1, W <= 8)
	// Strip: with Wave, the W warps' nodes are run by ONE warp, strip
	// after strip, each row's boundary handed over through a global
	// scratch (viterbi.cu, "Vertical strips"); blocks of Block/32
	// independent warps. Its exact build is the W-warp group (one strip,
	// W = 1: the one-warp kernel, which also takes NS = 2).
	Strip bool
	// StripRing, StripNR, StripBS (multi-strip shapes; modifiers rs, nr,
	// bs; viterbi.cu's STRIP_RECSH, STRIP_NR, STRIP_BS): the records
	// reach the next strip through a ring in shared memory filled by
	// asynchronous copies; a row's M(k0-1) and the last row's D(k0-1)
	// are the previous row's shuffles, not shuffled again (with DDefer);
	// the scan's D->D sums are composed once a strip.
	StripRing, StripNR, StripBS bool
	// StripLC (multi-strip shapes; modifier lc; viterbi.cu's STRIP_LC):
	// every strip's lanes run their own J and C chains and checks from
	// their own E maxima, so no strip reduces E over its lanes a row.
	StripLC bool
	// StripEA (multi-strip shapes with EmisShared; modifier ea;
	// viterbi.cu's STRIP_EA): each strip's emission scores reach shared
	// memory by asynchronous 16-byte copies, all of a thread's in flight
	// at once, instead of loads and stores through registers.
	StripEA bool
	// StripPS (multi-strip shapes; modifier ps; viterbi.cu's STRIP_PS):
	// a row's record is stored by one predicated store, no branch.
	StripPS bool
	// StripRW (multi-strip shapes with StripRing; modifier rw; viterbi.cu's
	// STRIP_RW): the residue words reach each strip through a ring of 64
	// bytes a warp in shared memory, filled with the records.
	StripRW bool
	// StripShort (multi-strip shapes with Extra > 0; modifier sh;
	// viterbi.cu's STRIP_SHORT): a strip whose ranks all hold C-1 nodes
	// runs C-1 slots a row instead of C with its last one padding.
	StripShort bool
	// StripFL (modifier fl; STRIP_FL): the first and last strips built
	// apart, without the tests of a strip's position in their rows.
	StripFL bool
	// StripU2 (modifier u2; STRIP_U2): the rows of strips of at most 14
	// slots two an iteration.
	StripU2 bool
}

const (
	// minNodesPerThread keeps a thread busy enough between exchanges.
	minNodesPerThread = 8
	// maxNodesPerThreadWarp is the most nodes a thread of a one-warp
	// group keeps in registers (five int32 arrays of C).
	maxNodesPerThreadWarp = 16
	// maxNodesPerThreadDShared is the most nodes a thread of dsmx1
	// keeps (M and I in registers, D in shared memory).
	maxNodesPerThreadDShared = 96
	// nodesPerThreadBlock is the target for multi-warp groups.
	nodesPerThreadBlock = 12
	// sharedBudget is the shared memory a block may take while two
	// blocks still fit on a multiprocessor.
	sharedBudget = 96 * 1024
	// transBudget is the most shared memory the transition table may
	// take (the H100/H200 opt-in limit is 227 KiB per block).
	transBudget = 200 * 1024
	// maxSharedOptin is the H100/H200 opt-in limit of shared memory per
	// block.
	maxSharedOptin = 227 * 1024
)

// ShapeFor chooses the kernel shape for a model of M nodes: the
// default variant (DefaultVariant) of ShapeVariant.
func ShapeFor(M int) Shape {
	s, _ := ShapeVariant(M, DefaultVariant)
	return s
}

// DefaultVariant is the kernel variant NewKernel uses unless
// $HMMGO_HMM2_KERNEL names another. Measured on an H100 (docs/hmm2search.md,
// 2026-11-27, 175 M resident residues): reg16 at M = 100 (870 GCUPS,
// w1024 814), w1024 at 300, 500 and 1000 (763, 719, 614), leanx at 1500
// (443; lean64 419), dsmx1 at 2000 and 3000 (324, 295; lean64 224, 213);
// then (100 M residues) 12-warp blocks and emission cache hints, the
// D chain by a scan, and (2026-11-28) groups of warps with one barrier a
// row for 384 < M <= 4096 (autoShape).
const DefaultVariant = "auto"

// Variants are the kernel variants ShapeVariant knows, for benchmarks:
//
//	v1     one sequence per thread (the first kernel's shapes)
//	ns2    two sequences per thread on one-warp shapes (T >= 2)
//	ns4    for M <= 256 enough threads per group for C <= 8 and four
//	       sequences per thread (registers: 4 x 4 arrays of 8), else ns2
//	w1024  as ns2, and one warp (C up to 32, one sequence per thread)
//	       instead of a multi-warp block for 512 < M <= 1024
//	reg16  M <= 512: one warp, T raised until C <= 16, transitions in
//	       registers (T = 8 at M = 100); else as w1024
//	lean64 short D passes and lean state: reg16's shapes to M = 256,
//	       w1024's to 1024, one warp of C <= 64 to 2048, multi-warp
//	       groups of C about 64 above
//	leanx  lean64 without short D passes
//	dsmx1  as auto to 512; above, lean state with the D cells in shared
//	       memory: one warp of C <= 96 to M = 3072 (blocks of 8 warps),
//	       then groups of W warps of C <= 64 (12 warps a block)
//	wscan  groups of W warps a sequence (one warp to M = 512), C <=
//	       16, transitions in registers, the D chain by a scan within
//	       each warp and composed between warps after one barrier a row,
//	       without the clamps that cannot bind, with the final pass
//	       (wscanN: C <= N, 4 <= N <= 32); auto's above 32 warps
//	wscanfit  as wscan, with W a power of two (2, 4, 8: whole groups
//	       fill the 8 warps of 255 registers a multiprocessor holds) and
//	       C <= 16
//	strip  as wscan to M = 512; above, wscan's W-warp layout run by one
//	       warp strip after strip (B speculated from N, as the
//	       wavefront; a global scratch hands each row's boundary from
//	       strip to strip), the D pass deferred (stripN: C <= N)
//	ostrip one strip: for 32 <= M <= 512 one warp of T = 32 ranks (C <=
//	       16) run by the strip kernel as its only strip, B speculated
//	       from N and checked, the emission table in shared memory
//	       (copied once a block), the D pass deferred; else auto2's
//	ostrip2  as ostrip, two sequences a warp (each lane carries both
//	       sequences' cells, the transitions loaded once)
//	ostripw  as ostrip for 512 < M <= 672 (C = 17-21, blocks of 8
//	       warps); else auto3's
//	auto0  auto before wscan (2026-11-28), for comparisons
//	auto1  auto before strip (2026-11-28 04:30 UTC), for comparisons
//	auto2  auto before one strip (2026-11-28 07:20 UTC), for comparisons
//	automs auto before the multi-strip kernel's ring and leaner rows
//	       (2026-11-28 10:15 UTC), for comparisons; automs.rs.nr.bs is
//	       auto before lane chains (2026-11-28 12:40 UTC)
//	auto3  auto before wide strips (2026-11-28 17:30 UTC), for
//	       comparisons
//	auto4  auto before rows two an iteration (2026-11-28 20:00 UTC), for
//	       comparisons: as auto3, with wide strips: ostripw for 512 < M
//	       <= 672, and strips of C = 17-18 (strip18, blocks of 8 warps)
//	       where they save a strip and leave at most three (1024 < M <=
//	       1152, 1536 < M <= 1728); auto3's strips of C <= 15 with sh
//	auto   ostripw for 512 < M <= 672, else auto3's, its strips with u2
//	       and sh, and fl except at C = 14 (autoShape); auto3:
//	       reg16 for M <= 256, ostrip to 288, ostrip2 to 448, ostrip to
//	       512 (auto2: w1024 to 384, wscan's one warp to 512),
//	       strip.se (one warp, strips of C <= 16, C <= 15 for 3584 < M
//	       <= 4096, the block's warps strip by strip with the strip's
//	       emissions in shared memory; rs.nr.bs.ea.rw, lc except at C =
//	       10 and 13, ps at C >= 10) for 512 < M <= 5120
//	       (autoStripMax), above as auto1
//	       (leanx); auto1: wscan's shapes to 4096
//	       (autoWScanShape: one warp of C >= 13, then groups of 2 to 8
//	       warps, the D pass deferred but with one or four warps of C =
//	       16; for 2304 < M <= 3072 as a wavefront with named barriers,
//	       modifiers wave.nb), leanx (groups of 2+ warps) above; w1024's shapes of two
//	       sequences per thread and C >= 13 in blocks of 12 warps with at
//	       most 168 registers, the D chain by a scan to M = 512, without
//	       the clamps that cannot bind and with the scan's final pass to
//	       256 (autoShape); auto0's choices above 384 before 2026-11-28:
//	       w1024 to 1024, leanx to 1536, dsmx1 to 3072, emissions past
//	       L1 for 1024 < M <= 2048
//
// Removed on 2026-11-27 (docs/hmm2search.md, "Fewer variants"): reg,
// mg16, fast, lean, dsm, dsm4, dsm12 and dsmx, which never won a
// measurement with a shape that a kept variant does not have.
var Variants = []string{"v1", "ns2", "ns4", "w1024", "reg16", "lean64", "leanx", "dsmx1", "auto", "auto0", "auto1", "auto2", "automs", "auto3", "auto4", "wscan", "wscanfit", "strip", "ostrip", "ostrip2", "ostripw"}

// autoRegMax is the largest model auto gives reg16's shapes: at M = 100
// they beat w1024 by 7 %; reg's T = 32 shapes lost at M = 300. With the
// scan without clamps (autoNoClampMax) its T = 16 shapes also beat the
// two-sequence shapes to M = 256 (H100, 2026-11-27 23:24 UTC, 100 M
// resident residues, kernel GCUPS, old auto / reg16.iscan.noclamp.spass:
// M = 150 850 / 935, 176 847 / 1,073, 192 812 / 1,070, 200 896 / 1,041,
// 224 831 / 1,152, 256 768 / 1,119, globin (142) 857 / 911; its T = 32
// shapes lost: 300 812 / 715, pkinase (294) 796 / 701). A model the scan
// does not take (ScanMaxLen 0: a -INFTY score the recurrences read)
// runs reg16's int32 build there, 0.65-0.94x of the old shape at
// 142-224 (1.23x at 256).
const autoRegMax = 256

// autoDSharedMin is where auto moves the D cells of a one-warp shape to
// shared memory (dsmx1, C up to 96): on an H100 (2026-11-27, 175 M
// residues) dsmx1 ran 324 GCUPS at M = 2000 (dsm12 294, lean64 224) and
// 295 at 3000 (leanx's 2-warp groups 280, lean64's 213), while at 1500
// (C = 47) leanx's D in registers won (443; dsmx 355, dsmx1 347).
const autoDSharedMin = 32 * 48

// ShapeVariant is the shape of kernel variant v for a model of M nodes.
// v may carry launch modifiers after dots (see withModifiers), for
// benchmarks: "auto.b32.m10.c100".
func ShapeVariant(M int, v string) (Shape, error) {
	if base, mods, ok := strings.Cut(v, "."); ok {
		s, err := ShapeVariant(M, base)
		if err != nil {
			return s, err
		}
		return s.withModifiers(mods)
	}
	s := shapeV1(M)
	ns := 1
	switch v {
	case "v1":
	case "ns2":
		ns = 2
	case "ns4":
		ns = 2
		if M <= 32*8 {
			T := 4
			for T < 32 && (M+T-1)/T > 8 {
				T *= 2
			}
			s = newShape(M, T, 1, 256)
			ns = 4
		}
	case "w1024":
		ns = 2
		if s.W > 1 && M <= 32*32 {
			s = newShape(M, 32, 1, 128)
			ns = 1
		}
	case "reg16":
		if M > 32*maxNodesPerThreadWarp {
			return ShapeVariant(M, "w1024")
		}
		return regWarpShape(M, 16), nil
	case "auto":
		return autoShape(M), nil
	case "wscan":
		return wscanShape(M, maxNodesPerThreadWarp), nil
	case "wscanfit":
		return wscanFitShape(M), nil
	case "auto0":
		return autoShape0(M), nil
	case "auto1":
		return autoShape1(M), nil
	case "auto2":
		return autoShape2(M), nil
	case "auto3":
		return autoShape3(M), nil
	case "auto4":
		return autoShape4(M), nil
	case "automs":
		if M > autoStripMin && M <= autoStripMax {
			return autoShape2(M), nil
		}
		return autoShape(M), nil
	case "strip":
		return stripShape(M, maxNodesPerThreadWarp), nil
	case "ostrip":
		return oneStripShape(M, 1), nil
	case "ostrip2":
		return oneStripShape(M, 2), nil
	case "ostripw":
		return wideOneStripShape(M), nil
	case "leanx":
		s, _ = ShapeVariant(M, "lean64")
		s.DExit = false
		return s, nil
	case "dsmx1":
		if M <= 32*16 {
			return autoShape0(M), nil
		}
		if M <= 32*maxNodesPerThreadDShared {
			s = newShape(M, 32, 1, 256)
		} else {
			W := min(32, (M+32*64-1)/(32*64))
			ng := max(1, 12/W)
			s = newShape(M, 32, W, 32*W*ng)
			s.NGrp = ng
		}
		s.Lean, s.DShared = true, true
		for s.SharedBytes() > maxSharedOptin && s.TransShared {
			if s.ngrp() > 1 {
				s.NGrp--
				s.Block -= 32 * s.W
			} else if s.Block > 128 {
				s.Block -= 128
			} else {
				s.TransShared = false
			}
		}
		s.EmisShared = s.EmisShared && s.SharedBytes() <= sharedBudget
		return s, nil
	case "lean64":
		const c = 64
		switch {
		case M <= 32*8:
			s, _ = ShapeVariant(M, "reg16")
		case M <= 32*32:
			s, _ = ShapeVariant(M, "w1024")
		case M <= 32*c:
			s = newShape(M, 32, 1, 128)
		default:
			W := min(32, (M+32*c-1)/(32*c))
			ng := max(1, 8/W) // blocks of 256 threads: up to 255 registers
			s = newShape(M, 32, W, 32*W*ng)
			s.NGrp = ng
			s.TransShared = s.transBytes() <= transBudget
			s.EmisShared = s.TransShared && s.transBytes()+s.emisBytes()+s.exchangeBytes() <= sharedBudget
		}
		s.DExit, s.Lean = true, true
		return s, nil
	default:
		if n, err := strconv.Atoi(strings.TrimPrefix(v, "wscan")); err == nil && strings.HasPrefix(v, "wscan") && n >= 4 && n <= 32 {
			return wscanShape(M, n), nil
		}
		if n, err := strconv.Atoi(strings.TrimPrefix(v, "strip")); err == nil && strings.HasPrefix(v, "strip") && n >= 2 && n <= 32 {
			return stripShape(M, n), nil
		}
		return Shape{}, fmt.Errorf("unknown hmm2 Viterbi kernel variant %q (known: %v)", v, Variants)
	}
	if s.W == 1 && s.T >= ns {
		s.NS = ns
	}
	return s, nil
}

// withModifiers applies launch modifiers, separated by dots, to s:
//
//	bN   blocks of N threads (N a multiple of 32; one-warp shapes only,
//	     the others keep theirs)
//	mN   __launch_bounds__(block, N): registers capped so that N blocks
//	     fit a multiprocessor (64K / (N x block), rounded down to 8)
//	cN   preferred shared-memory carveout of N percent (1..100)
//	eg   emissions read through the read-only cache, not shared memory
//	se   strip shapes: the block's warps run strip by strip together,
//	     the strip's emissions copied to shared memory (blocks of
//	     stripSharedBlock threads unless bN says otherwise)
//	rs   multi-strip shapes: the records through a ring of 64 a warp in
//	     shared memory, filled by asynchronous copies 32 rows ahead
//	nr   multi-strip shapes with defer: no second shuffle of the last
//	     row's M(k0-1) and D(k0-1)
//	bs   multi-strip shapes: the scan's D->D sums composed once a strip
//	lc   multi-strip shapes: J, C and the check from each lane's own E
//	     in every strip, C and the checks reduced once a target
//	ps   multi-strip shapes: a row's record stored by one predicated
//	     store (no branch a row)
//	ea   multi-strip shapes with se: each strip's emission table
//	     copied by cp.async, 16 bytes a copy, none through registers
//	rw   multi-strip shapes with rs: the residues through a ring of 64
//	     bytes a warp in shared memory, filled with the records
//	sh   multi-strip shapes with short ranks: a strip whose ranks all
//	     hold C-1 nodes runs C-1 slots a row
//	fl   multi-strip shapes: the first and last strips built apart,
//	     without the tests of a strip's position in their rows
//	u2   multi-strip shapes: the rows of strips of at most 14 slots two
//	     an iteration
//	ts   transitions in shared memory (or global), not in registers
//	ecg  emissions read from global memory cached in L2 only (__ldcg)
//	ecs  emissions read from global memory evict-first (__ldcs)
//	iscan  the D chain by a scan over the ranks instead of repeated
//	     passes (one-warp shapes without lean state), for models whose
//	     scores are all finite (ScanMaxLen); auto's default to M =
//	     autoScanMax
//	dpass  the D chain by repeated passes (the plain int32 build), for
//	     comparisons with auto's scan
//	noclamp  with the scan: no -INFTY clamps on the cells where none can
//	     bind (for models ClampFreeMaxLen covers; the others keep them);
//	     auto's to M = autoNoClampMax
//	clamp  the scan with every clamp (auto before the noclamp build)
//	spass  with the scan: the D cells by one pass of add-maxes from the
//	     scan's incoming D, not an addition and a maximum a cell; auto's
//	     to M = autoNoClampMax
//	defer  with spass: that pass's D cells computed in the next row's M
//	     loop, slot by slot, instead of after the scan (no D array)
//	nodefer  without defer
//	nospass  the scan's additions and maxima (auto.clamp.nospass is auto
//	     before 2026-11-27 23:00 UTC at every M)
//
// (The float and dscan modifiers, FP32 cells, lost 8-22 % on an H100
// and were removed; docs/hmm2search.md, "FP32 cells".) None changes a
// score: they change where values live, how many warps share a
// multiprocessor, or how the D chain's maxima are grouped.
func (s Shape) withModifiers(mods string) (Shape, error) {
	for _, m := range strings.Split(mods, ".") {
		switch {
		case m == "eg":
			s.EmisShared = false
		case m == "se":
			if s.Strip && !s.EmisShared {
				s.EmisShared = true
				if s.Block == stripBlock {
					s.Block = stripSharedBlock
				}
			}
		case m == "ts":
			if s.TransReg {
				s.TransReg = false
				s.TransShared = s.transBytes() <= transBudget
				s.EmisShared = s.EmisShared && s.SharedBytes() <= sharedBudget
			}
		case m == "iscan":
			s.DScan = (s.W == 1 || s.ngrp() == 1) && !s.Lean
			s.NoClamp, s.ScanPass = s.NoClamp && s.DScan, s.ScanPass && s.DScan
			s.DDefer = s.DDefer && s.ScanPass
		case m == "dpass":
			s = s.int32()
		case m == "spass":
			s.ScanPass = s.DScan
		case m == "nospass":
			s.ScanPass, s.DDefer, s.Wave = false, false, false
		case m == "defer":
			s.DDefer = s.ScanPass
		case m == "nodefer":
			s.DDefer = false
		case m == "wave":
			s.Wave = s.DScan && s.ScanPass && s.W > 1 && s.ngrp() == 1 && s.ns() == 1
		case m == "nb":
			if s.Wave && s.W <= 8 {
				s.WaveBar, s.WaveRing = true, 1
			}
		case s.stripFlag(m) != nil:
			*s.stripFlag(m) = s.Strip && s.W > 1
		case m == "noclamp":
			s.NoClamp = s.DScan
		case m == "clamp":
			s.NoClamp = false
		case m == "ecg" || m == "ecs":
			if !s.EmisShared { // (shared emissions take no hint)
				s.EmisHint = map[string]int{"ecg": 1, "ecs": 2}[m]
			}
		case len(m) > 1 && strings.ContainsRune("bmcrz", rune(m[0])):
			n, err := strconv.Atoi(m[1:])
			if err != nil || n < 1 {
				return s, fmt.Errorf("bad hmm2 Viterbi kernel modifier %q", m)
			}
			switch m[0] {
			case 'b':
				if n%32 != 0 || n > 1024 {
					return s, fmt.Errorf("modifier %q: blocks of whole warps, at most 1024 threads", m)
				}
				if s.W == 1 || s.Strip { // (a multi-warp shape's block is its groups)
					s.Block = n
				}
			case 'm':
				s.MinBlocks = n
			case 'r':
				s.WaveRing = n
			case 'z':
				s.WaveSleep = n
			case 'c':
				if n > 100 {
					return s, fmt.Errorf("modifier %q: a carveout is a percentage", m)
				}
				s.Carveout = n
			}
		default:
			return s, fmt.Errorf("unknown hmm2 Viterbi kernel modifier %q (known: bN, mN, cN, rN, zN, eg, se, ts, ecg, ecs, iscan, dpass, noclamp, clamp, spass, nospass, defer, nodefer, wave, nb, rs, nr, bs, lc, ps, ea, rw, sh, fl, u2)", m)
		}
	}
	s = s.stripChecked()
	if s.SharedBytes() > maxSharedOptin {
		return s, fmt.Errorf("modifiers %q: %d bytes of shared memory a block", mods, s.SharedBytes())
	}
	return s, nil
}

// auto's launch choices on top of the variants' shapes (H100, 2026-11-27,
// 100 M resident residues, same-call comparisons; docs/hmm2search.md,
// "Occupancy and cache hints"):
//
//   - one-warp shapes with two sequences per thread and C >= 13 run in
//     blocks of wideBlock threads with registers capped so that one
//     block fits a multiprocessor (168 registers: 12 warps, 3 per
//     scheduler, instead of one 8-warp block at 176-254 registers):
//     1.12-1.14x at M = 200 (C = 13, no spills), 1.08-1.09x at 500 (C =
//     16, 48 spill bytes). With C <= 10 the kernel takes 128 registers
//     and two 8-warp blocks already fit: 384-thread blocks lost 6-9 %
//     (M = 300, globin, pkinase); with transitions in registers (reg16)
//     they gained 1-2 % at M = 100 and lost 3 % at 50; with C = 25-32
//     (M = 800, 1000) they tied or lost up to 30 %.
//   - emissions read from global memory skip L1 (__ldcg) for
//     1024 < M <= autoHintMax, leaving L1 to register spills: 1.036x at
//     M = 1500, 1.026x at 2000, none at 3000 or on pkinase10 (2,940).
//   - one-warp shapes without lean state take the D chain by a scan
//     (iscan) for M <= autoScanMax, where the model allows it
//     (ScanMaxLen; the others keep the D passes). H100, 2026-11-27
//     22:31 UTC, 100 M resident residues, kernel GCUPS with passes /
//     with the scan: M = 50 873 / 921, 100 905 / 958, 200 869 / 895,
//     300 717 / 812, 500 835 / 846, globin (142) 743 / 856, pkinase
//     (294) 610 / 794; at 1000 (C = 32) 609 / 603, so not above 512.
//     At M = 100 the scan ran 1.6 % fewer instructions at IPC 2.45
//     instead of 2.22 (ncu): no vote loop of passes.
//   - the scan build without the clamps that cannot bind (noclamp) and
//     with its final pass (spass) for M <= autoNoClampMax (reg16's
//     shapes). H100, 2026-11-27 23:08 UTC, 100 M resident residues,
//     kernel GCUPS, auto.clamp.nospass / auto.nospass / auto.noclamp.spass
//     (two rounds agreeing within 1 %): M = 50 921 / 948 / 968, 100
//     962 / 1009 / 1017; on the NS = 2 shapes above they tie or lose
//     (150 849 / 837 / 837, 200 896 / 889 / 842, 300 811 / 812 / 789,
//     500 847 / 813 / 815, globin 855 / 856-863 / 870, pkinase 795 /
//     796 / 773), so there auto keeps the clamps and the additions.
const (
	wideBlock      = 384
	autoWideMinC   = 13
	autoHintMax    = 2048
	autoScanMax    = 512
	autoNoClampMax = autoRegMax
)

// auto takes autoWScanShape for autoWScanMin < M <= autoWScanMax. H100,
// 100 M resident residues, kernel GCUPS (docs/hmm2search.md, "Groups of
// warps with one barrier a row"), 2026-11-28 00:49 UTC, auto0 (auto
// before) / auto's wscan shape: M = 400 879 / 1,076 (one warp, T = 32, C
// = 13), 450 838 / 1,133 (C = 15), 500 853 / 1,032 (C = 16), 600 593 /
// 678 (2 warps, C = 10), 800 581 / 678 (2, 13), 1000 616 / 726 (2, 16),
// 1500 454 / 696 (4, 12), 2000 347 / 718 (4, 16), 2100 333 / 443 (6,
// 11), 2300 342 / 469 (6, 12), 2500 325 / 474 (7, 12), 2700 310 / 489
// (8, 11), 3000 311 / 522 (8, 12), 3500 289 / 575 (8, 14), 4000 269 /
// 582 (8, 16), pkinase10 (2,940) 307 / 508. One warp of C = 10 lost at M
// = 300 (715 / 811, 00:31 UTC), so auto starts at C = 13. Eight warps of
// C = 9-10 lost to 5-7 warps of C = 11-12 at 2100-2500 (362-374 /
// 443-474), hence C <= 12 above 2,048. The D pass deferred to the next
// row (DDefer) gained 1-9 % at every C < 16 measured and with 2 or 8
// warps of C = 16 (1000: 698 / 726, 4000: 534 / 582), and lost 1-2 % with
// one or four warps of C = 16 (500, 2000, in two calls each).
const (
	autoWScanMin = 384  // (C >= 13 on one warp above)
	autoWScanMax = 4096 // (8 warps of C = 16)
)

// autoShape is auto's shape: the fastest measured per M
// (docs/hmm2search.md): one strip of C = 17-21 for 512 < M <= 672, else
// auto3's, its strips with rows two an iteration (u2, which unrolls
// strips of at most 14 slots only), short strips (sh) where C < 16, and
// the first and last strips built apart (fl) except at C = 14. With u2
// and fl, auto3's strips of C = 11-14 beat auto4's wide strips of C =
// 17-18 (below), so auto no longer takes them.
func autoShape(M int) Shape {
	s := autoShortShape(M)
	if s.Strip && s.W > 1 {
		mods := "u2"
		if s.C != 14 {
			mods += ".fl"
		}
		s, _ = s.withModifiers(mods)
	}
	return s
}

// Rows two an iteration (u2) and the first and last strips built apart
// (fl) where they measured faster. H200, 2026-11-28 19:51 UTC, 100 M
// resident residues, kernel GCUPS (spilled bytes), auto4 / fl / u2 /
// fl.u2: C = 11 673 969 / 961 / 1,008 / 1,051, 704 985 / 1,024 / 1,084
// / 1,137; 12 720 1,001 / 987 / 1,099 / 1,084, 760 1,015 / 1,033 /
// 1,086 / 1,129; 13 800 1,084 / 1,078 / 1,145 / 1,181, 1153 1,011 /
// 1,019 / 1,048 / 1,120; 14 850 1,072 / 1,080 / 1,137 (8) / 1,144 (8),
// 890 1,053 / 1,118 / 1,177 / 1,171, 1250 1,061 / 1,069 / 1,107 /
// 1,118, 1300 1,082 / 1,072 / 1,140 / 1,121 (24), 1729 1,076 / 1,059 /
// 1,126 / 1,098, 2200 1,094 / 1,073 / 1,142 / 1,106, 4000 1,104 / 1,077
// / 1,142 / 1,097; 15 950 1,057 / 1,158 / 1,007 (48) / 1,066 (40), 1800
// (strips 1-3 of 14 slots) 1,083 / 1,090 / 1,112 / 1,139; 16 1000 1,081
// / 1,107 / 922 (88) / 1,014, 1500 1,080 / 1,104 / 921 / 1,036, 3000
// 1,079 / 1,092 / 918 / 968; wide 1025 (2 x 17) 1,040 / 1,070 / 891
// (200) / 999, 1100 (2 x 18) 1,017 / 1,029 / 874 / 952, 1537 (3 x 17)
// 1,039 / 981 / 891 / 936, 1700 (3 x 18) 1,047 / 1,030 / 901 / 966.
// Then auto4's wide strips with fl against auto3's strips with sh.u2.fl
// (C = 11-13) or sh.u2 (C = 14), H200, 19:59 UTC: 1025 (2 x 17 / 3 x
// 11) 1,069 / 1,061, 1060 (3 x 12) 1,034 / 1,087, 1100 1,029 / 1,109,
// 1152 1,116 / 1,138, 1537 (3 x 17 / 4 x 13) 1,038 / 1,123, 1600 1,082
// / 1,114, 1650 1,018 / 1,125, 1700 (4 x 14) 1,047 / 1,104, 1728 1,028
// / 1,123.

// autoShape4 is auto's shape before u2 and fl (variant auto4): auto3's,
// but one strip of C = 17-21 for 512 < M <= 672, strips of C = 17-18
// where they save a strip and leave at most three, and short strips
// (sh) on auto3's strips of C <= 15.
func autoShape4(M int) Shape {
	if M > autoWideOneStripMax && M <= autoWideStripsMax && stripCount(M, maxNodesPerThreadWide) < stripCount(M, maxNodesPerThreadWarp) {
		s, _ := stripShape(M, maxNodesPerThreadWide).withModifiers("se.b256")
		return withAutoStripModifiers(s)
	}
	return autoShortShape(M)
}

// autoShortShape is the shape auto and auto4 share: one strip of C =
// 17-21 for 512 < M <= 672, else auto3's, its strips of C <= 15 with
// short strips (sh).
func autoShortShape(M int) Shape {
	if M > autoOneStripMax && M <= autoWideOneStripMax {
		return wideOneStripShape(M)
	}
	s := autoShape3(M)
	if s.Strip && s.W > 1 && s.C < maxNodesPerThreadWarp {
		s, _ = s.withModifiers("sh")
	}
	return s
}

// Short strips (sh) where they measured faster: auto3's strips of C =
// 11-15. H200, 2026-11-28 17:36 and 17:37 UTC, 100 M resident residues,
// kernel GCUPS, auto then / auto.sh: C = 11 673 944 / 946, 700 982 / 983,
// 704 1,034 / 1,035; 12 720 970 / 1,004, 760 1,023 / 1,030; 13 800
// 1,005 / 1,057, 830 1,041 / 1,056, 1153 967 / 1,002, 1200 1,006 /
// 1,047, 2049 1,032 / 1,044; 14 850 981 / 1,056, 890 1,028 / 1,102,
// 1250 962 / 1,045, 1300 1,000 / 1,073, 1729 997 / 1,070, 2200 1,014 /
// 1,089, 2600 1,000 / 1,067, 3100 1,021 / 1,097, 4000 1,024 / 1,101; 15
// 900 985 / 1,070, 950 1,038 / 1,037, 1800 989 / 1,031, 1900 1,043 /
// 1,033, 2400 1,132 / 1,132, 3300 1,037 / 1,101. Not at C = 16 (1000
// 1,077 / 1,055, 4500 1,073 / 1,049) or in wide strips (1025 1,020 /
// 959, 1100 1,005 / 983, 1537 1,019 / 1,049, 1600 1,059 / 985). The
// gains exceed the padding slots saved (4000: 1 of 126 a row): the
// build with both slot counts is also compiled differently.

// Wide strips: a thread of the strip kernel keeps up to
// maxNodesPerThreadWide nodes (one strip: up to 21) in registers,
// spilling at most 112 bytes, in blocks of stripWideBlock threads (the
// emission table, up to 129 KiB, leaves room for one block a
// multiprocessor). H200, 2026-11-28 17:15 and 17:16 UTC, 100 M resident
// residues, kernel GCUPS (registers, spilled bytes), auto3 /
// ostripw-like one strip in blocks of 128 / of 256: M = 513 (C = 17)
// 845 / 1,083 (253, 0) / 1,063; 576 (18) 962 / 1,157 / 1,185; 600 (19)
// 909 / 740 / 1,146 (255, 24); 620 (20) 938 / 648 / 1,034; 640 (20) 954
// / 746 / 1,122; 660 (21) 926 / 645 / 1,008 (255, 16); 672 (21) 943 /
// 661 / 1,014 (255, 112); 700 (22) 983 / 574 / 944 (255, 48), so one
// strip to C = 21. Strips of C = 17-18 (auto's modifiers, blocks of 256)
// against auto3's (without lane chains): 1060 (2 x 17 against 3 x 12)
// 953 / 1,053 (859), 1100 987 / 1,005 (994), 1152 1,026 / 1,114
// (1,038), 1600 (3 x 17 against 4 x 13) 1,007 / 1,060 (866), 1700 981 /
// 1,035 (1,021), 2200 (4 x 18 against 5 x 14) 1,015 / 1,006: so to three
// strips (autoWideStripsMax).
const (
	maxNodesPerThreadWide = 18
	autoWideOneStripMax   = 32 * 21
	autoWideStripsMax     = 3 * 32 * maxNodesPerThreadWide
	stripWideBlock        = 256
)

// stripCount is the number of strips of at most maxC nodes a thread
// stripShape deals M nodes into.
func stripCount(M, maxC int) int { return (M + 32*maxC - 1) / (32 * maxC) }

// autoShape3 is auto's shape before wide strips (variant auto3).
func autoShape3(M int) Shape {
	if M > autoStripMin && M <= autoStripMax {
		return autoStripShape(M)
	}
	switch {
	case M > autoOneStrip9Min && M <= autoOneStrip9Max:
		return oneStripShape(M, 1)
	case M > autoOneStrip2Min && M <= autoOneStrip2Max:
		return oneStripShape(M, 2)
	case M > autoOneStripMin && M <= autoOneStripMax:
		return oneStripShape(M, 1)
	}
	return autoShape2(M)
}

// auto takes one strip of one target a warp (ostrip) or of two (ostrip2)
// for 256 < M <= 512. First (before the leaner rows below) ostrip2 for
// 256 < M <= 416 (C = 9-13) and ostrip for 480 < M <= 512 (C = 16):
// H100, 2026-11-28 07:08 UTC, 100 M resident residues, kernel
// GCUPS, auto then (auto2) / ostrip / ostrip2: M = 260 757 / 811 / 879
// (C = 9), 300 810 / 978 / 965, 350 762 / 1,050 / 1,068, 400 1,055 /
// 961 / 1,117 (C = 13), 450 1,074 / 1,002 / 953 (C = 15), 500 964 /
// 1,071 / 917 (C = 16), pkinase (294) 794 / 966 / 952; an earlier call
// (06:49 UTC) gave ostrip 951, 891, 1,003, 1,105 and 879 at 260, 300,
// 400, 500 and pkinase against auto then 758, 810, 1,055, 964, 794. For
// C = 14-15 (417-480) auto keeps wscan's one warp.
//
// With the one-strip kernel's leaner rows (no E reduction a row; H200,
// 2026-11-28 09:27 and 09:35 UTC, docs/hmm2search.md "One strip: leaner
// rows"), ostrip / ostrip2: C = 9 M = 257 1,041 / 1,024, 260 1,058 /
// 1,033, 280 1,131 / 1,100, 288 1,135 / 1,141, so auto takes ostrip for
// autoOneStrip9Min < M <= autoOneStrip9Max; C = 10-14 300 1,046 / 1,105
// and 1,033 / 1,085, 320 1,161 / 1,137, 349 1,158 / 1,191 and 1,150 /
// 1,189, 400 1,149 / 1,168, 416 1,108 / 1,161, 440 1,194 / 1,249
// (wscan's one warp 1,057), pkinase 1,040 / 1,097 and 1,038 / 1,088:
// ostrip2 to 448; C = 15 470 1,202 / 1,134 (wscan 1,123): ostrip above.
const (
	autoOneStrip9Min = autoRegMax
	autoOneStrip9Max = 32 * 9
	autoOneStrip2Min = autoOneStrip9Max
	autoOneStrip2Max = 32 * 14
	autoOneStripMin  = autoOneStrip2Max
	autoOneStripMax  = 32 * maxNodesPerThreadWarp
)

// autoStripShape is auto's multi-strip shape (512 < M <= 5120):
// automs's strip.se / strip15.se with the records through a shared
// ring, no second shuffle of the last row's boundary and the scan's
// D->D sums once a strip (rs.nr.bs). H200, 2026-11-28 10:10 UTC, 100 M
// resident residues, kernel GCUPS, automs / rs.nr.bs: M = 520 675 /
// 740, 700 852 / 923, 1000 845 / 895, 1500 850 / 887, 2000 856 / 918,
// 3000 873 / 932, 4000 905 / 965, 5000 838 / 877, pkinase10 856 / 913;
// rs alone gained 0-5 %, residue words four rows ahead lost 2-4 %
// (docs/hmm2search.md, "Leaner strips").
//
// Lane chains (lc) where they measured faster: strips of C <= 9 or C =
// 16, where rs.nr.bs spills (8 and 24 bytes) and lc does not. H200,
// 2026-11-28 12:19 and 12:25 UTC, 100 M resident residues, kernel GCUPS,
// auto then / lc: C = 9 (520) 742 / 809, 740 / 810; C = 16 1000 896 /
// 945, 896 / 943; 1500 887 / 926, 887 / 924; 4500 878 / 906; 5000 877 /
// 909. Lost at C = 10-15 (2-7 %: 620-950 two strips, 1200-4000 three to
// nine; docs/hmm2search.md, "Lane chains in the strips").
func autoStripShape(M int) Shape {
	s := autoShape2(M)
	if M > autoStrip15Min && M <= autoStrip16Max { // (k strips of C = 16 again, not k+1 of 13-15)
		s, _ = stripShape(M, maxNodesPerThreadWarp).withModifiers("se")
	}
	return withAutoStripModifiers(s)
}

// withAutoStripModifiers gives a multi-strip shape auto's modifiers:
// rs.nr.bs.ea.rw, lane chains except at autoStripNoLaneChainC, and
// predicated stores from autoStripPredStoreMinC.
func withAutoStripModifiers(s Shape) Shape {
	mods := "rs.nr.bs.ea.rw"
	if !autoStripNoLaneChainC[s.C] {
		mods += ".lc"
	}
	if s.C >= autoStripPredStoreMinC {
		mods += ".ps"
	}
	s, _ = s.withModifiers(mods) // (at most 120 KiB of shared memory, C = 18: no error)
	return s
}

// autoStripNoLaneChainC are the C at which auto's strips run without
// lane chains, and autoStripPredStoreMinC the smallest C at which they
// store records by predicated stores (below); every strip of auto copies
// its emissions by cp.async (ea) and reads its residues from the ring
// (rw: H200, 2026-11-28 15:56 UTC, two rounds, auto then / rw: 520 (2 x
// 9) 826, 828 / 858, 857; 620 (2 x 10) 853, 855 / 937, 939; 700 (2 x
// 11) 932, 934 / 981, 983; 890 (2 x 14) 1,028, 1,031 / 1,026, 1,027;
// 1000 (2 x 16) 984, 985 / 1,073, 1,074; 1100 (3 x 12) 911, 913 / 988,
// 989; 1500 974, 975 / 1,074, 1,075; 2000 970, 969 / 1,074, 1,075; 3000
// 965, 967 / 1,073, 1,075; 4000 (9 x 14) 1,005, 1,005 / 1,024, 1,026).
// With ps and ea, lane chains measured
// faster at C = 11 and 14 too (H200, 2026-11-28 15:40 UTC, two rounds,
// auto then / strip(15).se.rs.nr.bs.lc.ps.ea): 700 (2 x 11) 923.0,
// 923.4 / 932.1, 933.3; 890 (2 x 14) 993.3, 993.2 / 1,029.6, 1,028.9;
// 1700 (4 x 14) 937.6, 937.5 / 969.1, 969.0; 4000 (9 x 14) 974.6, 974.7
// / 1,004.7, 1,004.9; slower at C = 10 (620 842.5, 844.7 / 835.2,
// 835.1) and 13 (830 996.1, 996.0 / 982.6, 983.1; 1200 950.0, 949.9 /
// 935.3, 935.1).
var autoStripNoLaneChainC = map[int]bool{10: true, 13: true}

const autoStripPredStoreMinC = 10

// Predicated record stores (ps) where they measured faster: H200,
// 2026-11-28 15:13 and 15:14 UTC, 100 M resident residues, kernel
// GCUPS, auto then / ps (two rounds in the second call): C = 10 (620)
// 841 / 846, 842 / 848, 844 / 848; 12 (760) 932 / 940, 933 / 939; 13
// (830, 2 strips) 974 / 989, 975 / 989, (1200) 928 / 943, 928 / 943,
// (2000) 918 / 934, 919 / 936, 920 / 936; 16 (1000) 945 / 970, 946 /
// 971, 946 / 971, (1500) 927 / 959, 928 / 959, 928 / 960, (4500, 5000)
// 910 / 948, 911 / 948, 910 / 947, 910 / 947. Not taken: C = 9 (520 809
// / 812 but 576 898 / 878), 11 (700 923-925 / 909-910), 14 (890, 2500,
// 3000, 4000: 0.05-0.3 % behind); C = 11, 14 and 15 take it with lane
// chains and ea (below).

// Emission tables copied by cp.async (ea) where it measured faster: H200,
// 2026-11-28 15:29 UTC, 100 M resident residues, kernel GCUPS, auto
// (with ps) / ea, two rounds: C = 9 (520) 808 / 826, 808 / 829, (576)
// 896 / 901, 899 / 904; 10 (620) 847 / 853, 848 / 854; 13 (2000) 934 /
// 942, 936 / 943; 14 (2500) 907 / 916, 908 / 917, (3000) 931 / 941,
// 933 / 943; 16 (1000) 970 / 983, 972 / 985, (1500) 958 / 974, 960 /
// 975, (4500) 947 / 962, 948 / 964. C = 11 lost without lane chains
// (700 923 / 917, 925 / 919) and took it with them (below).
//
// With ps and ea, lane chains win at C = 12 and 15 too, and strips of
// C = 16 beat strip15's at 2,000-3,500 (H200, 15:32 UTC, two rounds,
// auto then / auto.ea / strip.se.rs.nr.bs.lc.ps.ea): 760 (2 x 12) 939,
// 939 / 936, 937 / 955, 954; 950 (2 x 15) 952, 952 / 966, 966 / 1,000,
// 1,000; 1100 (3 x 12) 897, 898 / 893, 893 / 911, 912; 2000 (5 x 13
// against 4 x 16) 941, 942 / - / 969, 970; 2500 (6 x 14, 5 x 16) 915,
// 916 / 967, 967; 3000 (7 x 14, 6 x 16) 941, 941 / 965, 966; 3500 (8 x
// 14, 7 x 16) 960, 960 / 964, 964; not at 1600 (4 x 13: lane chains
// 930, 930 against 944, 945) or 4000 (9 x 14, 8 x 16: 975, 975 / 963,
// 963).

// autoStrip16Max: up to here auto's strips are strip's (C <= 16) where
// autoShape2 takes strip15's.
const autoStrip16Max = 7 * 32 * maxNodesPerThreadWarp

// autoShape2 is auto's shape before one strip (variant auto2).
func autoShape2(M int) Shape {
	if M > autoStripMin && M <= autoStripMax {
		maxC := maxNodesPerThreadWarp
		if M > autoStrip15Min && M <= autoStrip15Max {
			maxC = 15
		}
		s, _ := stripShape(M, maxC).withModifiers("se") // (96 KiB at most: no error)
		return s
	}
	return autoShape1(M)
}

// autoStripMin and autoStripMax bound the models auto runs in vertical
// strips of C <= 16 (strip): on an H100 (2026-11-28 04:28 UTC, 100 M
// resident residues, kernel GCUPS, auto then / strip) M = 600 670 / 700
// (2 x 10), 700 617 / 808 (2 x 11), 800 670 / 830 (2 x 13), 1000 722 /
// 857 (2 x 16), 1500 684 / 837 (3 x 16), 2000 673 / 831 (4 x 16), 2500
// 490 / 794 (5 x 16), 3000 575 / 786 (6 x 16), pkinase10 (2,940) 564 /
// 770; strips of C <= 12-14 lost to C <= 16 at every M. Second call
// (04:33 UTC), auto1 (auto then) / strip / strip15: 520 596 / 681 / -
// (2 x 9), 560 642 / 734 / -, 3500 608 / 772 (7 x 16) / 791 (8 x 14),
// 4000 586 / 777 (8 x 16) / 796 (9 x 14), 5000 242 / 758 (10 x 16) /
// 737 (11 x 15), while at 1000-3000 and on pkinase10 strip15 lost or
// tied (763-790 against 779-857). Every variant's scores equaled auto1's
// on all 308,596 sequences. Third call (04:44 UTC), the block's warps
// strip by strip with the strip's emissions in shared memory (se), auto
// then (strip, strip15 at 4000) / strip.se / strip15.se: 520 661 / 675 /
// - (2 x 9), 700 778 / 852 / -, 1000 813 / 845 (2 x 16) / 805 (3 x 11),
// 2000 785 / 841 (4 x 16) / 855 (5 x 13), 3000 740 / 842 (6 x 16) / 875
// (7 x 14), 4000 809 / 837 (8 x 16) / 905 (9 x 14), 5000 719 / 837 (10 x
// 16) / 804 (11 x 15), pkinase10 725 / 826 / 857 (strip.se.b256, 8 warps
// a block: 1-20 % behind strip.se). So auto takes strip.se to 5,120 (10
// strips of 16), strip15.se for 1536 < M <= 4096 (where the two differ,
// k+1 strips of C = 13-15 instead of k of 16; measured at 2000-4000).
const (
	autoStripMin   = 32 * maxNodesPerThreadWarp // (one warp below: no strips)
	autoStripMax   = 10 * 32 * maxNodesPerThreadWarp
	autoStrip15Min = 1536
	autoStrip15Max = 4096
)

// autoShape1 is auto's shape before strips (variant auto1).
func autoShape1(M int) Shape {
	if M > autoWScanMin && M <= autoWScanMax {
		return autoWScanShape(M)
	}
	return autoShape0(M)
}

// autoWScanShape is auto's wscan shape for M nodes: one warp to M = 512,
// then 2 or 4 warps (one, two or four groups fill the 8 warps of 255
// registers a multiprocessor holds) with C <= 16 to 2,048, W warps of C
// <= 12 to 3,072, 8 warps of C <= 16 to 4,096; the D pass deferred
// (DDefer) except with one or four warps of C = 16, where it lost.
func autoWScanShape(M int) Shape {
	s := wscanFitShape(M)
	if M > 2048 && M <= 3072 {
		s = wscanShape(M, 12)
	}
	s.DDefer = !(s.C == maxNodesPerThreadWarp && (s.W == 1 || s.W == 4))
	if M > autoWaveMin && M <= autoWaveMax { // (7 or 8 warps of C <= 12: auto.wave.nb)
		s.Wave, s.WaveBar, s.WaveRing = true, true, 1
	}
	return s
}

// autoWaveMin and autoWaveMax bound the models auto runs as a wavefront
// with named barriers (wave.nb): on an H100 (2026-11-28 02:18 UTC, 100 M
// resident residues, kernel GCUPS, auto / auto.wave.nb) it won with 7
// and 8 warps of C = 12 (M = 2500 467 / 491, 3000 522 / 575, pkinase10
// 512 / 564) and lost with 2 and 4 warps (600 669 / 491, 1000 722 /
// 702, 1500 684 / 620, 2000 674 / 601); 6 warps (2049-2304) and 8 of
// C = 13-16 (3073-4096) were not timed.
const (
	autoWaveMin = 6 * 384
	autoWaveMax = 8 * 384
)

// autoShape0 is auto's shape before wscan (variant auto0).
func autoShape0(M int) Shape {
	v := "leanx"
	switch {
	case M <= autoRegMax:
		v = "reg16"
	case M <= 32*32:
		v = "w1024"
	case M > autoDSharedMin && M <= 32*maxNodesPerThreadDShared:
		v = "dsmx1"
	}
	s, _ := ShapeVariant(M, v)
	if s.W == 1 && s.ns() == 2 && s.C >= autoWideMinC {
		s.Block, s.MinBlocks = wideBlock, 1
	}
	if M > 32*32 && M <= autoHintMax && !s.EmisShared {
		s.EmisHint = 1
	}
	if M <= autoScanMax {
		s.DScan = s.W == 1 && !s.Lean
		s.NoClamp = s.DScan && M <= autoNoClampMax
		s.ScanPass = s.NoClamp
	}
	return s
}

// wscanShape is wscan's shape for M nodes and at most maxC nodes a
// thread: reg16's one-warp shapes (T = 32 above 16*maxC nodes) to
// 32*maxC nodes, then one group of W warps a block; transitions in
// registers, the D chain by a scan (composed between warps after one
// barrier a row), without clamps that cannot bind, with the final pass.
func wscanShape(M, maxC int) Shape {
	var s Shape
	if M > 32*32*maxC { // (a block holds at most 32 warps)
		return autoShape0(M)
	}
	if M <= 32*maxC {
		s = regWarpShape(M, maxC)
	} else {
		W := (M + 32*maxC - 1) / (32 * maxC)
		s = newShape(M, 32, W, 32*W)
		s.DScan = true // (before withTransReg: the scan's exchange slots)
		s = s.withTransReg()
	}
	s.DScan, s.NoClamp, s.ScanPass = true, true, true
	return s
}

// wscanFitShape is wscanfit's shape for M nodes: one warp to M = 512,
// then W warps, W the smallest power of two with C <= 16 (a
// multiprocessor holds 8 warps of 255 registers: 8/W whole groups).
// Above 32 warps, auto's.
func wscanFitShape(M int) Shape {
	if M <= 32*maxNodesPerThreadWarp || M > 32*32*maxNodesPerThreadWarp {
		return wscanShape(M, maxNodesPerThreadWarp)
	}
	W := 2
	for 32*W*maxNodesPerThreadWarp < M {
		W *= 2
	}
	s := newShape(M, 32, W, 32*W)
	s.DScan = true
	s = s.withTransReg()
	s.NoClamp, s.ScanPass = true, true
	return s
}

// stripShape is strip's shape for M nodes and at most maxC nodes a
// thread: wscan's one-warp shape to 32*maxC nodes, then the layout of
// W = ceil(M / (32*maxC)) warps (nodes dealt evenly: every strip has C
// or C-1 a rank) run by one warp strip after strip, B speculated from N
// (Wave), the D pass deferred, blocks of stripBlock threads. Above 32
// strips (the exact build's block limit), wscan's.
func stripShape(M, maxC int) Shape {
	if M <= 32*maxC || M > 32*32*maxC {
		return wscanShape(M, maxC)
	}
	s := wscanShape(M, maxC)
	s.DDefer, s.Wave, s.Strip = true, true, true
	s.EmisShared = false
	s.Block = stripBlock
	return s
}

// oneStripShape is ostrip's shape: for 32 <= M <= 512 the one-warp
// scan shape of T = 32 ranks run by the strip kernel as a single strip
// (W == 1: viterbi.cu, "One strip"), so that no row waits for the
// previous row's E, J and B; ns sequences a warp (viterbi.cu, "Two
// sequences a warp"); blocks of stripSharedBlock threads sharing one
// copy of the emission table. Other M: auto2's.
func oneStripShape(M, ns int) Shape {
	if M < 32 || M > 32*maxNodesPerThreadWarp {
		return autoShape2(M)
	}
	return oneStrip(M, ns, stripSharedBlock)
}

// wideOneStripShape is ostripw's shape: for 512 < M <= 672 ostrip's one
// strip of C = 17-21 in blocks of stripWideBlock threads (registers:
// "Wide strips" above); other M: auto3's.
func wideOneStripShape(M int) Shape {
	if M <= 32*maxNodesPerThreadWarp || M > autoWideOneStripMax {
		return autoShape3(M)
	}
	return oneStrip(M, 1, stripWideBlock)
}

// oneStrip is the one-strip shape of M nodes, ns sequences a warp and
// blocks of the given threads, the emission table in shared memory.
func oneStrip(M, ns, block int) Shape {
	s := newShape(M, 32, 1, block)
	s.DScan = true // (before withTransReg, as wscanShape)
	s = s.withTransReg()
	s.EmisShared = true
	s.NoClamp, s.ScanPass, s.DDefer, s.Wave, s.Strip = true, true, true, true, true
	s.NS = ns
	return s
}

// stripBlock is a strip shape's block: its warps share nothing, so one
// warp a block lets the multiprocessor fill every slot its registers
// allow.
const stripBlock = 32

// stripSharedBlock is a strip shape's block with the strip's emissions in
// shared memory (modifier se): 4 warps, 96 KiB of emissions at C = 16, so
// two blocks of 255 registers fit a multiprocessor and one block's copy
// between strips overlaps the other's rows.
const stripSharedBlock = 128

// stripChecked keeps Strip only where viterbi.cu's strip kernel applies
// (the wavefront's scan with its final pass, transitions in registers,
// one sequence a thread unless one strip); other modifiers turn it into
// its exact build.
func (s Shape) stripChecked() Shape {
	if !s.Strip {
		return s
	}
	if !(s.Wave && s.DScan && s.ScanPass && s.TransReg && s.T == 32 && (s.ns() == 1 || s.W == 1) && s.ngrp() == 1) {
		return s.exact()
	}
	s.WaveBar, s.WaveRing, s.WaveSleep = false, 0, 0
	return s
}

// regWarpShape is a one-warp shape whose threads keep their transitions
// in registers: T is raised until C <= maxC (or T = 32).
func regWarpShape(M, maxC int) Shape {
	T := 1
	for T < 32 && (M+T-1)/T > maxC {
		T *= 2
	}
	s := newShape(M, T, 1, 256)
	return s.withTransReg()
}

// withTransReg moves the transitions to registers; the emissions go to
// shared memory if they fit.
func (s Shape) withTransReg() Shape {
	s.TransReg, s.TransShared = true, false
	s.EmisShared = s.emisBytes()+s.exchangeBytes() <= sharedBudget
	return s
}

// shapeV1 is the first kernel's rule: the smallest group that leaves
// every thread at least minNodesPerThread nodes, one warp as long as C
// stays within registers, then whole blocks of up to 32 warps.
func shapeV1(M int) Shape {
	if M <= 32*maxNodesPerThreadWarp {
		T := 1
		for T < 32 && 2*T*minNodesPerThread <= M {
			T *= 2
		}
		return newShape(M, T, 1, 256)
	}
	W := min(32, (M+32*nodesPerThreadBlock-1)/(32*nodesPerThreadBlock))
	return newShape(M, 32, W, 32*W)
}

// newShape completes a shape with T threads per warp and W warps per
// sequence (T == 32 when W > 1) for M nodes; M must be at least T*W.
func newShape(M, T, W, block int) Shape {
	s := Shape{T: T, W: W, Block: block, NS: 1}
	g := s.G()
	s.C = (M + g - 1) / g
	s.Extra = M % g
	s.TransShared = s.transBytes() <= transBudget
	s.EmisShared = s.TransShared && s.transBytes()+s.emisBytes()+s.exchangeBytes() <= sharedBudget
	return s
}

// G is the number of threads per sequence.
func (s Shape) G() int { return s.T * s.W }

func round16(n int) int { return (n + 15) &^ 15 }

func (s Shape) transBytes() int { return 32*s.C*s.G() + round16(4*s.C*s.G()) }
func (s Shape) emisBytes() int  { return 8 * plan7.MaxCode * s.C * s.G() }
func (s Shape) exchangeBytes() int {
	if s.W == 1 || s.Strip {
		return 0
	}
	if s.Wave { // (viterbi.cu's X_INTS: each warp's ring and row counts)
		return 4 * (4*s.W*s.waveRing() + 2*s.W + 2)
	}
	if s.DScan { // (viterbi.cu's X_INTS: the warps' D maps by row parity)
		return 4 * (s.ngrp()*(14*s.W+1) + 1)
	}
	return 4 * (s.ngrp()*(8*s.W+1) + 1)
}

// SharedBytes is the dynamic shared memory of one block: the tables,
// the exchange slots and the D cells (DShared), in this order.
func (s Shape) SharedBytes() int {
	if s.Strip { // (the current strip's emissions, or nothing; the warps' record rings)
		n := 0
		if s.EmisShared {
			n = 8 * plan7.MaxCode * s.C * 32
		}
		if s.StripRing {
			n += s.Block / 32 * stripRingBytes
			if s.StripRW {
				n += s.Block / 32 * stripResidueRingBytes
			}
		}
		return n
	}
	n := 0
	if s.TransShared {
		n += s.transBytes()
	}
	if s.EmisShared {
		n += s.emisBytes()
	}
	if s.DShared {
		return n + round16(s.exchangeBytes()) + s.dBytes()
	}
	return n + s.exchangeBytes()
}

// dBytes are a block's D cells in shared memory (DShared).
func (s Shape) dBytes() int { return 4 * s.ns() * s.C * s.Block }

// Defines are the compile-time parameters of viterbi.cu.
func (s Shape) Defines() string {
	b2i := map[bool]int{false: 0, true: 1}
	d := fmt.Sprintf("#define T %d\n#define W %d\n#define C %d\n#define EXTRA %d\n#define NS %d\n#define KP %d\n#define BLOCK %d\n#define TRANS_SHARED %d\n#define EMIS_SHARED %d\n#define TRANS_REG %d\n#define NGRP %d\n#define DEXIT %d\n#define LEAN %d\n#define DSHARED %d\n",
		s.T, s.W, s.C, s.Extra, s.ns(), plan7.MaxCode, s.Block, b2i[s.TransShared], b2i[s.EmisShared], b2i[s.TransReg], s.ngrp(), b2i[s.DExit], b2i[s.Lean], b2i[s.DShared])
	// (Only when set, so that the other shapes' sources stay as they were.)
	if s.MinBlocks > 0 {
		d += fmt.Sprintf("#define MINBLOCKS %d\n", s.MinBlocks)
	}
	if s.EmisHint > 0 {
		d += fmt.Sprintf("#define EMIS_HINT %d\n", s.EmisHint)
	}
	for _, sw := range s.scanSwitches() {
		if sw.on {
			d += "#define " + sw.define + " 1\n"
		}
	}
	if s.Wave && s.WaveRing > 0 {
		d += fmt.Sprintf("#define WRING %d\n", s.WaveRing)
	}
	if s.Wave && s.WaveSleep > 0 {
		d += fmt.Sprintf("#define WSLEEP %d\n", s.WaveSleep)
	}
	if s.WaveBar {
		d += "#define WBAR 1\n"
	}
	for _, sw := range s.stripSwitches() {
		if sw.on {
			d += "#define " + sw.define + " 1\n"
		}
	}
	return d
}

// scanSwitch is one of the scan's compile-time switches: whether the
// shape sets it, its #define, and its letter in tables.
type scanSwitch struct {
	on             bool
	define, letter string
}

// scanSwitches lists the switches defined only when set, in the order
// Defines writes them and tables names them.
func (s Shape) scanSwitches() []scanSwitch {
	return []scanSwitch{{s.DScan, "DSCAN", "x"}, {s.NoClamp, "NOCLAMP", "u"}, {s.ScanPass, "SCANPASS", "p"}, {s.DDefer, "DDEFER", "f"}, {s.Wave, "WAVE", "v"}, {s.Strip, "STRIP", "t"}}
}

// stripSwitches are the multi-strip kernel's switches, defined only
// when set (a strip shape's), in the order Defines writes them.
func (s Shape) stripSwitches() []scanSwitch {
	on := s.Strip && s.W > 1
	return []scanSwitch{{on && s.StripRing, "STRIP_RECSH", "h"}, {on && s.StripNR && s.DDefer, "STRIP_NR", "R"}, {on && s.StripBS, "STRIP_BS", "S"}, {on && s.StripLC, "STRIP_LC", "L"}, {on && s.StripPS, "STRIP_PS", "P"}, {on && s.StripEA && s.EmisShared, "STRIP_EA", "A"}, {on && s.StripRW && s.StripRing, "STRIP_RW", "W"}, {on && s.StripShort && s.Extra > 0 && s.C > 1, "STRIP_SHORT", "H"}, {on && s.StripFL, "STRIP_FL", "F"}, {on && s.StripU2, "STRIP_U2", "U"}}
}

// stripFlag is the multi-strip kernel's switch that modifier m sets
// (on multi-strip shapes only), or nil.
func (s *Shape) stripFlag(m string) *bool {
	switch m {
	case "rs":
		return &s.StripRing
	case "nr":
		return &s.StripNR
	case "bs":
		return &s.StripBS
	case "lc":
		return &s.StripLC
	case "ea":
		return &s.StripEA
	case "ps":
		return &s.StripPS
	case "rw":
		return &s.StripRW
	case "sh":
		return &s.StripShort
	case "fl":
		return &s.StripFL
	case "u2":
		return &s.StripU2
	}
	return nil
}

// stripRingBytes is a warp's ring of records in shared memory
// (StripRing): 64 rows of 16 bytes.
const stripRingBytes = 64 * 16

// stripResidueRingBytes is a warp's ring of residues (StripRW): 64 rows.
const stripResidueRingBytes = 64

// node returns the model node (1-based) of slot j of rank r, or 0 for a
// padding slot.
func (s Shape) node(r, j int) int {
	base := s.C
	if s.Extra > 0 {
		base = s.C - 1
	}
	n := base
	if r < s.Extra {
		n = s.C
	}
	if j >= n {
		return 0
	}
	return r*base + min(r, s.Extra) + j + 1
}

// Tables are a profile laid out for viterbi.cu: slot (j, r) at j*G + r,
// so that the threads of a group read consecutive entries.
type Tables struct {
	A, B, E []byte // int4 {tmm, tim, tdm, bsc}, int4 {tmd, tdd, tmi, tii}, int esc
	Emis    []byte // int2 {msc, isc} at (x*C + j)*G + r
	Xsc     []byte // N loop, N move, E loop, E move, C loop, C move, J loop, J move
}

// NewTables lays out p for shape s. Every transition into node k (from
// k-1) sits with k's entry, exit and emission scores, as in the CPU lane
// kernel; I_M, which HMMER2 never computes, and padding slots get -INFTY
// (their values never reach a real node or E).
func NewTables(p *plan7.Profile, s Shape) *Tables {
	M, g := p.M, s.G()
	n := s.C * g
	t := &Tables{A: make([]byte, 16*n), B: make([]byte, 16*n), E: make([]byte, 4*n), Emis: make([]byte, 8*plan7.MaxCode*n)}
	put := func(b []byte, i int, v int32) { binary.LittleEndian.PutUint32(b[4*i:], uint32(v)) }
	for j := 0; j < s.C; j++ {
		for r := 0; r < g; r++ {
			i := j*g + r
			k := s.node(r, j)
			a := [4]int32{negInf, negInf, negInf, negInf}
			b := [4]int32{negInf, negInf, negInf, negInf}
			e := int32(negInf)
			if k > 0 {
				a = [4]int32{p.Tsc[plan7.TMM][k-1], p.Tsc[plan7.TIM][k-1], p.Tsc[plan7.TDM][k-1], p.Bsc[k]}
				b[0], b[1] = p.Tsc[plan7.TMD][k-1], p.Tsc[plan7.TDD][k-1]
				if k < M {
					b[2], b[3] = p.Tsc[plan7.TMI][k], p.Tsc[plan7.TII][k]
				}
				e = p.Esc[k]
			}
			for c := 0; c < 4; c++ {
				put(t.A, 4*i+c, a[c])
				put(t.B, 4*i+c, b[c])
			}
			put(t.E, i, e)
			for x := 0; x < plan7.MaxCode; x++ {
				ms, is := int32(negInf), int32(negInf)
				if k > 0 {
					ms = p.Msc[x][k]
					if k < M {
						is = p.Isc[x][k]
					}
				}
				put(t.Emis, 2*((x*s.C+j)*g+r), ms)
				put(t.Emis, 2*((x*s.C+j)*g+r)+1, is)
			}
		}
	}
	x := &p.Xsc
	t.Xsc = make([]byte, 32)
	for i, v := range []int32{x[plan7.XTN][plan7.Loop], x[plan7.XTN][plan7.Move], x[plan7.XTE][plan7.Loop], x[plan7.XTE][plan7.Move],
		x[plan7.XTC][plan7.Loop], x[plan7.XTC][plan7.Move], x[plan7.XTJ][plan7.Loop], x[plan7.XTJ][plan7.Move]} {
		put(t.Xsc, i, v)
	}
	return t
}

// int32 is s with D passes instead of the scan: the build that scores
// what the scan may not (models and lengths beyond ScanMaxLen).
func (s Shape) int32() Shape {
	s.DScan, s.NoClamp, s.ScanPass, s.DDefer = false, false, false, false
	return s.exact()
}

// exact is s without the wavefront: the build that scores the sequences
// a Wave build lists (same layout and tables).
func (s Shape) exact() Shape {
	s.Wave, s.WaveRing, s.WaveSleep, s.WaveBar = false, 0, 0, false
	if s.Strip && s.W == 1 { // (the one-warp kernel, same block and tables)
		s.Strip = false
	} else if s.Strip { // (the W-warp group, one a block, emissions in global memory)
		s.Strip, s.Block, s.EmisShared = false, 32*s.W, false
	}
	return s
}

// waveRing is viterbi.cu's WRING.
func (s Shape) waveRing() int {
	if s.WaveRing > 0 {
		return s.WaveRing
	}
	return 4
}

// ns is the number of sequences per thread.
func (s Shape) ns() int { return max(1, s.NS) }

// ngrp is the number of groups per block.
func (s Shape) ngrp() int { return max(1, s.NGrp) }

// PackT is the gpudb layout (threads per target) the shape reads:
// 32*NS/T sequences per warp block, one per block when W > 1.
func (s Shape) PackT() int { return s.T / s.ns() }

// tables says where the shape keeps its tables, for benchmarks:
// transitions in registers (r), shared (s) or global (g) memory, then
// the emissions, and d when the D cells are in shared memory.
func (s Shape) tables() string {
	t := "g"
	if s.TransReg {
		t = "r"
	} else if s.TransShared {
		t = "s"
	}
	if s.EmisShared {
		t += "s"
	} else {
		t += "g" + [...]string{"", "2", "e"}[s.EmisHint]
	}
	if s.DShared {
		t += "d"
	}
	for _, sw := range s.scanSwitches() {
		if sw.on {
			t += sw.letter
		}
	}
	for _, sw := range s.stripSwitches() {
		if sw.on {
			t += sw.letter
		}
	}
	return t
}
