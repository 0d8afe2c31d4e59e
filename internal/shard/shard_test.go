package shard

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
		err  string
	}{
		{"1/4", Spec{1, 4}, ""},
		{" 4/4 ", Spec{4, 4}, ""},
		{"0/4", Spec{}, "1 <= i <= N"},
		{"5/4", Spec{}, "1 <= i <= N"},
		{"1/0", Spec{}, "1 <= i <= N"},
		{"1", Spec{}, "expected i/N"},
		{"x/2", Spec{}, "two integers"},
	} {
		got, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %v, %v", c.in, got, err)
		}
	}
}

// TestInterleavedPartition: every item lands in exactly one shard, the
// shards' item counts differ by at most one, and their total lengths are
// balanced (each within the longest item of the mean).
func TestInterleavedPartition(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 2, 3, 7, 50} {
		lengths := make([]int64, 1000)
		var longest, total int64
		for i := range lengths {
			lengths[i] = int64(rng.ExpFloat64()*300) + 1
			longest = max(longest, lengths[i])
			total += lengths[i]
		}
		owner := make([]int, len(lengths))
		for s := 1; s <= n; s++ {
			items := Interleaved(lengths, Spec{s, n})
			var sum int64
			for k, i := range items {
				if k > 0 && items[k-1] >= i {
					t.Fatalf("shard %d/%d: items not increasing", s, n)
				}
				if owner[i] != 0 {
					t.Fatalf("item %d in shards %d and %d", i, owner[i], s)
				}
				owner[i] = s
				sum += lengths[i]
			}
			if c := len(items); c < len(lengths)/n || c > len(lengths)/n+1 {
				t.Errorf("shard %d/%d has %d items", s, n, c)
			}
			if mean := total / int64(n); sum < mean-longest || sum > mean+longest {
				t.Errorf("shard %d/%d has %d residues; mean %d, longest item %d", s, n, sum, mean, longest)
			}
		}
		for i, o := range owner {
			if o == 0 {
				t.Fatalf("%d shards: item %d in none", n, i)
			}
		}
	}
}

// TestContiguousTiles: the runs tile the items in shard order, and each
// run's weight is within one item of its share.
func TestContiguousTiles(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, count := range []int{0, 1, 5, 100} {
		w := make([]int64, count)
		var total, heaviest int64
		for i := range w {
			w[i] = rng.Int63n(1000)
			total += w[i]
			heaviest = max(heaviest, w[i])
		}
		for _, n := range []int{1, 2, 3, 10, 200} {
			next := 0
			for s := 1; s <= n; s++ {
				first, end := Contiguous(w, Spec{s, n})
				if first != next || end < first {
					t.Fatalf("%d items, shard %d/%d: [%d,%d) after %d", count, s, n, first, end, next)
				}
				var sum int64
				for _, x := range w[first:end] {
					sum += x
				}
				if share := total / int64(n); sum > share+heaviest+1 {
					t.Errorf("%d items, shard %d/%d: weight %d, share %d", count, s, n, sum, share)
				}
				next = end
			}
			if next != count {
				t.Fatalf("%d items, %d shards: runs end at %d", count, n, next)
			}
		}
	}
}

func TestFileRoundTripAndChecks(t *testing.T) {
	var b bytes.Buffer
	h := Header{Command: "x", Shard: 2, Of: 2, Args: []string{"-a"}, Inputs: []string{"in: 3 items"}}
	if err := Encode(&b, h, []byte("payload")); err != nil {
		t.Fatal(err)
	}
	f, err := Decode(bytes.NewReader(b.Bytes()), "f")
	if err != nil || string(f.Payload) != "payload" || f.Header.Shard != 2 {
		t.Fatalf("round trip: %v %+v", err, f)
	}
	raw := b.Bytes()
	for _, c := range []struct {
		data []byte
		want string
	}{
		{raw[:len(raw)-1], "truncated"},
		{append(append([]byte(nil), raw...), 'x'), "unexpected data"},
		{[]byte("hello\n"), "not an hmmgo shard file"},
		{[]byte(magic + "{\"command\":\"x\"}\n"), "bad shard header"},
		{[]byte(magic + "{\"command\":\"x\",\"shard\":1,\"of\":1,\"bogus\":1}\n"), "bad shard header"},
		// A damaged length is a truncation, not an allocation.
		{[]byte(magic + "{\"command\":\"x\",\"shard\":1,\"of\":1,\"payload_bytes\":900000000000000}\nabc"), "results end after 3 of 900000000000000 bytes"},
	} {
		if _, err := Decode(bytes.NewReader(c.data), "f"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	other := &File{Path: "g", Header: h}
	other.Header.Shard = 1
	other.Header.Inputs = []string{"in: 4 items"}
	if err := CheckSet([]*File{f, other}); err == nil || !strings.Contains(err.Error(), "different inputs") {
		t.Errorf("mixed inputs: %v", err)
	}
	many := &File{Path: "m", Header: h}
	many.Header.Of = 2000000000
	if err := CheckSet([]*File{many}); err == nil || !strings.HasSuffix(err.Error(), "missing 1/2000000000, 3/2000000000, 4/2000000000, 5/2000000000, 6/2000000000, 7/2000000000, 8/2000000000, 9/2000000000, 10/2000000000, 11/2000000000, and 1999999989 more") {
		t.Errorf("two billion shards: %v", err)
	}
}

// Example: five targets dealt out to two shards by length, and a
// contiguous split of five weights into two runs.
func Example() {
	lengths := []int64{100, 900, 300, 500, 700}
	fmt.Println(Interleaved(lengths, Spec{1, 2}), Interleaved(lengths, Spec{2, 2}))
	fmt.Println(Contiguous(lengths, Spec{1, 2}))
	// Output:
	// [0 1 3] [2 4]
	// 0 3
}
