package redisdb_test

import (
	"context"
	"fmt"

	"github.com/hmmgo/hmmgo/alphabet"
	"github.com/hmmgo/hmmgo/internal/queue"
	"github.com/hmmgo/hmmgo/internal/redisdb"
)

// Store a FASTA file as "uniprot", then read targets 10-19 back as a
// worker does (the byte range comes from the task, as the submitter cut
// it from its copy of the file). Not run: it needs a Redis server.
func Example() {
	ctx := context.Background()
	c, err := queue.Connect(ctx, "redis://127.0.0.1:6379")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	abc := alphabet.New(alphabet.Amino)
	m, err := redisdb.Store(ctx, c, "uniprot", "uniprot_sprot.fasta", abc, redisdb.StoreOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Sequences, "sequences in", len(m.Blocks), "blocks")
	db, err := redisdb.Open(ctx, c, "uniprot", 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	var byteStart, byteEnd int64 // from the task
	seqs, err := db.Targets(ctx, 10, 20, byteStart, byteEnd, abc)
	fmt.Println(len(seqs), err)
}

func ExampleCheckName() {
	fmt.Println(redisdb.CheckName("uniprot_2024-01"))
	fmt.Println(redisdb.CheckName("../etc"))
	// Output:
	// <nil>
	// database name "../etc": use 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit
}
