package workercmd

import (
	"os"

	"github.com/hmmgo/hmmgo/internal/cli"
)

// Example: a worker needs a queue and at least one database.
func Example() {
	Command.Run(cli.Env{Stdout: os.Stdout, Stderr: os.Stdout}, []string{"--redis", "redis://127.0.0.1:6379"})
	// Output:
	// hmmgo worker: give at least one --db DB
	// usage: hmmgo worker --redis URL --db DB [--db DB...] [options]
	//
	// Takes tasks of 'hmmgo hmmsearch --redis URL ...' runs from the Redis server
	// at URL and does them, until interrupted. Start any number of workers, on
	// any machines that reach the server and can read the databases. A worker
	// only takes tasks over the databases given with --db, which it recognises
	// by content (SHA-256), so every machine may keep its copy at its own path.
	//
	// DB: a FASTA file, or redis:NAME for a database stored in the same Redis
	// server with 'hmmgo makedb --redis URL db.fa NAME' (blocks are fetched as
	// tasks need them).
	//
	// URL: redis://[:password@]host:port[/db] or rediss:// for TLS (the server's
	// certificate is checked against the system roots or $SSL_CERT_FILE).
	//
	// options:
	//   --redis URL       the queue's Redis server (also $HMMGO_REDIS)
	//   --db DB           a database this worker serves (repeatable)
	//   --cpu N           threads per task (default: all cores)
	//   --tasks N         tasks done at once (default: 3 on GPUs, else 1): the
	//                     next task starts while the others finish, so that
	//                     their serial parts (reading a block, the device's
	//                     short launches, a task's last slow target) overlap
	//   --gpu [LIST]      run tasks on GPUs: alone the first usable one, or N,
	//                     a list 0,2, or all; fails when none is usable
	//   --nogpu           never use a GPU (default: use one when present)
	//   --name NAME       worker name in progress reports (default host-pid)
	//   --visibility D    a task whose worker is silent this long is taken over
	//                     by another worker (default 30s)
	//   --max-deliveries N  fail a task handed out N times (default 5)
	//   --idle-exit D     exit after D without a task (default: never)
	//   -v                print a line per task on stderr
}
