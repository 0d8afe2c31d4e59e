package hmmsearch

import (
	"context"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/hmmer3/pipeline"
	"github.com/hmmgo/hmmgo/seqio"
)

// blockAccel is an accelerator over one block of targets that holds
// device memory until freed.
type blockAccel interface {
	pipeline.Accelerator
	free()
}

// residentBlock is a block of targets a worker keeps in memory and on its
// GPUs, so that every task over the same targets (each model block of a
// job, the next job over the same database) reuses the upload.
type residentBlock struct {
	key      blockKey
	seqs     []*seqio.Sequence
	indices  []int64 // database number of each target
	residues int64
	acc      blockAccel
	used     uint64 // LRU clock
}

type blockKey struct {
	db         string
	first, end int64
	alph       alphabet.Type
}

// residentCache holds blocks up to a budget of residues; the least
// recently used go first. One goroutine uses it (a worker does one task
// at a time).
type residentCache struct {
	budget int64 // residues; the newest block stays even when larger
	upload func(seqs []*seqio.Sequence, abc *alphabet.Alphabet) (blockAccel, error)
	blocks map[blockKey]*residentBlock
	total  int64
	clock  uint64
	// uploads counts blocks made resident (tests check reuse).
	uploads int
}

func newResidentCache(budget int64, upload func([]*seqio.Sequence, *alphabet.Alphabet) (blockAccel, error)) *residentCache {
	return &residentCache{budget: budget, upload: upload, blocks: make(map[blockKey]*residentBlock)}
}

// get returns the block of a task, reading and uploading it if it is not
// resident, after evicting what the budget no longer holds.
func (c *residentCache) get(ctx context.Context, src TargetSource, task *remoteTask, abc *alphabet.Alphabet) (*residentBlock, error) {
	key := blockKey{db: src.Fingerprint(), first: task.TargetFirst, end: task.TargetEnd, alph: abc.Type}
	c.clock++
	if b := c.blocks[key]; b != nil {
		b.used = c.clock
		return b, nil
	}
	seqs, err := src.Targets(ctx, task.TargetFirst, task.TargetEnd, task.ByteStart, task.ByteEnd, abc)
	if err != nil {
		return nil, err
	}
	b := &residentBlock{key: key, seqs: seqs, used: c.clock}
	for i, sq := range seqs {
		b.indices = append(b.indices, task.TargetFirst+int64(i))
		b.residues += int64(sq.L())
	}
	c.evict(c.budget - b.residues)
	if b.acc, err = c.upload(seqs, abc); err != nil {
		return nil, err
	}
	c.blocks[key] = b
	c.total += b.residues
	c.uploads++
	return b, nil
}

// evict frees least recently used blocks until at most keep residues
// stay resident.
func (c *residentCache) evict(keep int64) {
	for c.total > max(keep, 0) && len(c.blocks) > 0 {
		var old *residentBlock
		for _, b := range c.blocks {
			if old == nil || b.used < old.used {
				old = b
			}
		}
		c.drop(old)
	}
}

func (c *residentCache) drop(b *residentBlock) {
	b.acc.free()
	delete(c.blocks, b.key)
	c.total -= b.residues
}

// dropOthers frees every block but keep: a device error may come from
// memory the other blocks hold.
func (c *residentCache) dropOthers(keep *residentBlock) int {
	n := 0
	for _, b := range c.blocks {
		if b != keep {
			c.drop(b)
			n++
		}
	}
	return n
}

// free releases every block.
func (c *residentCache) free() { c.dropOthers(nil) }

// cpuBlock stands in for the GPUs in tests and on machines without one
// when asked to (RunnerOptions.StagedOnCPU): the same staged path, with
// the CPU's kernels.
type cpuBlock struct{ pipeline.CPUAccelerator }

func (cpuBlock) free() {}

var (
	_ blockAccel = (*gpuSearch)(nil)
	_ blockAccel = cpuBlock{}
)
