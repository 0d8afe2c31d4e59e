package hmmsearch

import (
	"context"
	"sync"

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
	pins     int    // tasks using it: it stays until they are done
}

type blockKey struct {
	db         string
	first, end int64
	alph       alphabet.Type
}

// residentCache holds blocks up to a budget of residues; the least
// recently used go first, but never while a task uses them. Tasks running
// at once share it.
type residentCache struct {
	mu     sync.Mutex
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
// resident, after evicting what the budget no longer holds. The block is
// pinned until release. Blocks are read one at a time (two tasks of one
// block read it once).
func (c *residentCache) get(ctx context.Context, src TargetSource, task *remoteTask, abc *alphabet.Alphabet) (*residentBlock, error) {
	key := blockKey{db: src.Fingerprint(), first: task.TargetFirst, end: task.TargetEnd, alph: abc.Type}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if b := c.blocks[key]; b != nil {
		b.used = c.clock
		b.pins++
		return b, nil
	}
	seqs, err := src.Targets(ctx, task.TargetFirst, task.TargetEnd, task.ByteStart, task.ByteEnd, abc)
	if err != nil {
		return nil, err
	}
	b := &residentBlock{key: key, seqs: seqs, used: c.clock, pins: 1}
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

// release ends a task's use of its block.
func (c *residentCache) release(b *residentBlock) {
	c.mu.Lock()
	b.pins--
	c.mu.Unlock()
}

// evict frees least recently used blocks that no task uses until at most
// keep residues stay resident (or only blocks in use do).
func (c *residentCache) evict(keep int64) {
	for c.total > max(keep, 0) {
		var old *residentBlock
		for _, b := range c.blocks {
			if b.pins == 0 && (old == nil || b.used < old.used) {
				old = b
			}
		}
		if old == nil {
			return
		}
		c.drop(old)
	}
}

func (c *residentCache) drop(b *residentBlock) {
	b.acc.free()
	delete(c.blocks, b.key)
	c.total -= b.residues
}

// dropOthers frees every block but keep and those other tasks use: a
// device error may come from memory the other blocks hold.
func (c *residentCache) dropOthers(keep *residentBlock) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, b := range c.blocks {
		if b != keep && b.pins == 0 {
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
