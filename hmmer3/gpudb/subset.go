package gpudb

import (
	"fmt"
	"os"
	"time"

	"github.com/hmmgo/hmmgo/gpu/cuda"
)

// A Subset is some of a database's targets (a filter call's: the MSV
// pass's targets SSV left undecided, the Viterbi filter's survivors)
// planned for one launch's layout. Packing a subset on the host put
// 0.4 s of a 3.9 s run on each query's critical chain (and ~10 CPU s on
// 1,000 models): with the residues already on the device, the host only
// plans (a radix sort and the block table), and the lane the launch runs
// on packs it (Lane.Layout).
type Subset struct {
	pl             *layoutPlan
	packer         *devicePacker
	in             []byte // packInputs
	startAt, lenAt int
	// host is the subset packed here, with HMMGO_GPUDB_PACK=host.
	host *Packed
}

// hostPacking reports whether layouts are packed on the host
// (HMMGO_GPUDB_PACK=host), the way before the residues went to the
// device: for comparison, and for a device short of memory.
func hostPacking() bool { return os.Getenv("HMMGO_GPUDB_PACK") == "host" }

// Subset plans the layout of targets idx (database numbers) for kernels
// with T threads per target. The first subset or layout of the database
// uploads its residues.
func (db *DB) Subset(idx []int, T int) (*Subset, error) {
	return db.subsetOf(planLayout(whole(db.Dsqs, idx), T), "a subset")
}

// subsetOf is the Subset of plan pl: packed here now (hostPacking), or
// on the launch's lane by the device packer. what names the layout in
// errors.
func (db *DB) subsetOf(pl *layoutPlan, what string) (*Subset, error) {
	if hostPacking() {
		return &Subset{host: packPlan(nil, db.Dsqs, pl)}, nil
	}
	p, err := db.packer()
	if err != nil {
		return nil, fmt.Errorf("packing %s on GPU %d: %w", what, db.ctx.Device().Ordinal, err)
	}
	in, startAt, lenAt := p.packInputs(pl)
	return &Subset{pl: pl, packer: p, in: in, startAt: startAt, lenAt: lenAt}, nil
}

// Layout lays sub out in the lane's buffers, in stream order (the
// launch queued next on the lane reads it): the plan's small arrays and
// block table are copied, and the packing kernel runs on the lane's
// stream, so nothing waits for other lanes. Like UploadPacked's, the
// layout belongs to the lane until its next use and must not be freed.
func (ln *Lane) Layout(sub *Subset) (*Device, error) {
	defer LaneTimes.Layout.since(time.Now())
	if sub.host != nil {
		return ln.UploadPacked(sub.host)
	}
	pl := sub.pl
	res, err := ln.Bufs.Get("subset.res", pl.offs[pl.nb]+16)
	if err != nil {
		return nil, err
	}
	table, err := ln.Bufs.Get("subset.table", len(pl.table)+BlockBytes)
	if err != nil {
		return nil, err
	}
	if err := ln.copyIn(table.Ptr(), pl.table); err != nil {
		return nil, err
	}
	in, err := ln.Upload("subset.in", sub.in)
	if err != nil {
		return nil, err
	}
	if pl.nb > 0 {
		var a cuda.Args
		sub.packer.packArgs(&a, pl, in.Ptr(), sub.startAt, sub.lenAt, res.Ptr())
		cfg := cuda.LaunchConfig{Grid: cuda.Dim3{X: packGrid(ln.Bufs.ctx, pl)}, Block: cuda.Dim3{X: packBlockThreads}, Stream: ln.Stream}
		if err := sub.packer.fn.Launch(cfg, &a); err != nil {
			return nil, fmt.Errorf("packing a subset: %w", err)
		}
	}
	return &Device{Res: res, Table: table, NBlocks: pl.nb}, nil
}
