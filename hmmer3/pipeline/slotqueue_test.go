package pipeline

import (
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"
)

// queued waits until q has n waiters and held slots.
func queued(t *testing.T, q *slotQueue, n, held int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		q.mu.Lock()
		k, h := len(q.urgent)+len(q.later), q.held
		q.mu.Unlock()
		if k == n && h == held {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d waiters and %d held, want %d and %d", k, h, n, held)
		}
	}
}

// TestSlotQueueOrder: a freed slot goes to the urgent waiters in arrival
// order, then to the others smallest key first, equal keys in arrival
// order.
func TestSlotQueueOrder(t *testing.T) {
	q := newSlotQueue(1, 0)
	q.take(true, 0)
	type task struct {
		name   string
		urgent bool
		key    int
	}
	tasks := []task{{"later 50", false, 50}, {"urgent a", true, 900}, {"later 10 a", false, 10},
		{"urgent b", true, 1}, {"later 10 b", false, 10}, {"later 20", false, 20}}
	got := make(chan string, len(tasks))
	var wg sync.WaitGroup
	for i, tk := range tasks {
		wg.Go(func() {
			q.take(tk.urgent, tk.key)
			got <- tk.name
			q.give(tk.urgent)
		})
		queued(t, q, i+1, 1)
	}
	q.give(true)
	wg.Wait()
	close(got)
	var order []string
	for name := range got {
		order = append(order, name)
	}
	want := []string{"urgent a", "urgent b", "later 10 a", "later 10 b", "later 20", "later 50"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("order %q, want %q", order, want)
	}
}

// TestSlotQueueReserve: while a query is on the devices and more are to
// start, later tasks leave the reserve free, which urgent ones may take;
// without either condition the later tasks take every slot.
func TestSlotQueueReserve(t *testing.T) {
	// held reports the slots taken, and by later tasks.
	held := func(q *slotQueue) (int, int) {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.held, q.heldLater
	}
	for _, c := range []struct {
		name              string
		onDevice, toStart bool
		later             int // later tasks that get a slot of 4
	}{
		{"on the devices, more to start", true, true, 2},
		{"on the devices, none to start", true, false, 4},
		{"none on the devices", false, true, 4},
	} {
		q := newSlotQueue(4, 2)
		if c.onDevice {
			q.deviceStages(1)
		}
		q.queriesToStart(c.toStart)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { q.take(false, 7) })
		}
		queued(t, q, 4-c.later, c.later)
		if h, l := held(q); h != c.later || l != c.later {
			t.Errorf("%s: %d slots held, %d by later tasks; want %d", c.name, h, l, c.later)
		}
		if c.later < 4 {
			// The reserve serves urgent tasks.
			for range 4 - c.later {
				q.take(true, 0)
			}
			// Its end lets the later tasks in as slots free.
			q.deviceStages(-1)
			for range 4 - c.later {
				q.give(true)
			}
		}
		wg.Wait()
		if h, l := held(q); h != 4 || l != 4 {
			t.Errorf("%s: at the end %d held, %d later; want 4 and 4", c.name, h, l)
		}
	}
}

// TestSlotQueueRandom: many goroutines of both kinds take and give slots
// while queries enter and leave their device stages; no more than the
// slots are ever held, and every task gets its slot.
func TestSlotQueueRandom(t *testing.T) {
	const size, reserve = 6, 3
	q := newSlotQueue(size, reserve)
	var mu sync.Mutex
	var bad []string
	check := func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if q.held > size || q.held < 0 || q.heldLater > q.held {
			mu.Lock()
			bad = append(bad, "held out of range")
			mu.Unlock()
		}
	}
	var wg sync.WaitGroup
	for g := range 40 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 200 {
				switch r.IntN(4) {
				case 0:
					q.deviceStages(1)
					check()
					time.Sleep(time.Duration(r.IntN(50)) * time.Microsecond)
					q.deviceStages(-1)
				case 1:
					q.queriesToStart(r.IntN(2) == 0)
				default:
					urgent := r.IntN(2) == 0
					q.take(urgent, r.IntN(5))
					check()
					time.Sleep(time.Duration(r.IntN(50)) * time.Microsecond)
					q.give(urgent)
				}
			}
		})
	}
	wg.Wait()
	q.queriesToStart(false)
	if len(bad) > 0 {
		t.Fatal(bad[0])
	}
	if q.held != 0 || q.heldLater != 0 || q.onDevice != 0 || len(q.urgent)+len(q.later) != 0 {
		t.Errorf("at the end: held %d, later %d, on the devices %d, waiters %d", q.held, q.heldLater, q.onDevice, len(q.urgent)+len(q.later))
	}
}
