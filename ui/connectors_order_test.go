package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestWorstFirstKeepsHealthyRowsInPlace: with the default sort, connectors
// that flush all the time stay in name order whatever flushed last, so a
// screen of them is not redrawn on every flush; a late one comes first.
func TestWorstFirstKeepsHealthyRowsInPlace(t *testing.T) {
	f := newFixture()
	key := func(c int) string { return fmt.Sprintf(`["jdbc-%02d",{"table":"t"}]`, c) }
	for c := range 8 {
		for i := range 10 {
			f.put(t0.Add(-time.Duration(20-2*i)*time.Second), key(c), fmt.Sprintf(`{"id":%d}`, i))
		}
	}
	// jdbc-99 flushed every 15 s and not for 40 s: late.
	for i := range 5 {
		f.put(t0.Add(-time.Duration(100-15*i)*time.Second), `["jdbc-99",{"table":"t"}]`, fmt.Sprintf(`{"id":%d}`, i))
	}
	m := newTestModel(f.store)
	send(t, m, size(160, 30))
	order := func() string {
		var names []string
		for _, l := range strings.Split(screenText(m), "\n") {
			if i := strings.Index(l, "jdbc-"); i >= 0 && i <= len("▶ ") {
				names = append(names, l[i:i+7])
			}
		}
		return strings.Join(names, " ")
	}
	first := order()
	if !strings.HasPrefix(first, "jdbc-99 jdbc-00 jdbc-01") {
		t.Fatalf("rows %s: want the late one first, then the rest by name", first)
	}
	for c := 7; c >= 0; c-- { // each flushes again, the last name first
		f.put(t0.Add(-time.Duration(c)*100*time.Millisecond), key(c), `{"id":99}`)
		send(t, m, tickMsg{})
		if got := order(); got != first {
			t.Fatalf("after jdbc-%02d flushed the rows moved:\n%s\nwere\n%s", c, got, first)
		}
	}
}
