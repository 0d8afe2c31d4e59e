package dl

import (
	"testing"
	"time"
)

func TestTimesSumPerName(t *testing.T) {
	a, b := statFor("test-a"), statFor("test-b")
	a.add(3 * time.Millisecond)
	a.add(2 * time.Millisecond)
	b.add(time.Millisecond)
	if statFor("test-a") != a {
		t.Fatal("statFor made a second counter for one name")
	}
	got := map[string]CallTime{}
	var order []string
	for _, c := range Times() {
		got[c.Name] = c
		order = append(order, c.Name)
	}
	if c := got["test-a"]; c.Calls != 2 || c.Total != 5*time.Millisecond {
		t.Errorf("test-a: %+v, want 2 calls, 5ms", c)
	}
	ia, ib := -1, -1
	for i, n := range order {
		switch n {
		case "test-a":
			ia = i
		case "test-b":
			ib = i
		}
	}
	if ia < 0 || ib < 0 || ia > ib {
		t.Errorf("order %v: want test-a (5ms) before test-b (1ms)", order)
	}
}
