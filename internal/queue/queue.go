// Package queue is hmmgo's work queue on Redis: a submitting command
// splits a job into tasks, workers on any number of machines take them
// from a Redis Stream consumer group, and the results come back on a
// per-job stream.
//
// Guarantees, and how:
//   - nothing is lost: a task stays pending until its worker acknowledges
//     it after posting the result; a worker that dies leaves it pending,
//     and after the visibility timeout another worker reclaims it
//     (XAUTOCLAIM). Live workers keep their tasks by re-claiming them
//     (resetting the idle time) while they work;
//   - nothing is counted twice: results carry their task number and a
//     SHA-256 of their body; the submitter keeps the first good result of
//     each task and discards the rest;
//   - nothing is silently short: the submitter finishes only when every
//     task's result has arrived. When Redis loses the job (a restart
//     without persistence, a rolled-back snapshot), the submitter puts the
//     job and every unfinished task back; when Redis stays unreachable it
//     fails with a message saying how much was done;
//   - workers take only what they can do: tasks go to a stream per
//     database (named by the database's SHA-256), and a worker reads only
//     the streams of the databases it was started with; what a task may
//     name is checked by the task's handler against those databases.
package queue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Key layout. Everything lives under one prefix so that an operator can
// find (and delete) it.
const (
	prefix = "hmmgo:"
	group  = "hmmgo-workers"
)

// TaskStream is the stream of tasks over the database with the given
// fingerprint (hex SHA-256).
func TaskStream(db string) string { return prefix + "tasks:" + shortPrint(db) }

func jobKey(id string) string     { return prefix + "job:" + id }
func resultKey(id string) string  { return prefix + "job:" + id + ":results" }
func shortPrint(db string) string { return db[:min(len(db), 32)] }

// Connect opens a client for a redis:// or rediss:// (TLS) URL, with an
// optional user and password (redis://:password@host:port/db) and
// go-redis's query options (e.g. ?dial_timeout=3s; rediss:// takes
// skip_verify=true for a self-signed server, or trusts the CA bundle in
// $SSL_CERT_FILE). Errors never repeat the password.
func Connect(ctx context.Context, rawURL string) (*redis.Client, error) {
	opt, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("bad Redis URL %s: %v", Redact(rawURL), redactErr(err, rawURL))
	}
	opt.MaxRetries = 2
	c := redis.NewClient(opt)
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Ping(pctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("cannot reach Redis at %s: %v", Redact(rawURL), redactErr(err, rawURL))
	}
	return c, nil
}

// Redact returns the URL with its password replaced, for messages.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

func redactErr(err error, rawURL string) string {
	msg := err.Error()
	if u, perr := url.Parse(rawURL); perr == nil {
		if pw, has := u.User.Password(); has && pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	return msg
}

// Checksum is the hex SHA-256 that results carry.
func Checksum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// ensureGroup creates the consumer group (and the stream) if missing.
func ensureGroup(ctx context.Context, c *redis.Client, stream string) error {
	err := c.XGroupCreateMkStream(ctx, stream, group, "0").Err()
	if err != nil && !strings.Contains(err.Error(), "BUSYGROUP") {
		return err
	}
	return nil
}

func isNoGroup(err error) bool { return err != nil && strings.Contains(err.Error(), "NOGROUP") }

// field reads a string field of a stream message.
func field(m redis.XMessage, name string) string {
	v, _ := m.Values[name].(string)
	return v
}

var errNoJob = errors.New("job not found")

func init() {
	// go-redis logs connection-pool events on stderr (a closing
	// connection at shutdown, for one); the queue reports what matters in
	// its own words, so its chatter is kept for debugging only.
	redis.SetLogger(quietLogger{})
}

type quietLogger struct{}

func (quietLogger) Printf(ctx context.Context, format string, v ...any) {
	if os.Getenv("HMMGO_REDIS_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "redis: "+format+"\n", v...)
	}
}
