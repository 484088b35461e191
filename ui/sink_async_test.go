package ui

import (
	"slices"
	"testing"
	"time"

	"koff/keymap"
	"koff/ui/kit"
	"koff/ui/screens"
)

// The sink screen of a group of many partitions works out filters and
// sorts off the UI goroutine (the key marks the rows stale and lays out
// nothing), and lands the rows and the screen that working them out in
// place gives, through filters, sorts and a reload of moved commits.
func TestBigSinkFilterAndSortOffTheUIGoroutine(t *testing.T) {
	at := time.UnixMilli(1_796_000_000_000)
	src := bigSinkStore(screens.BigSource+1000, at, 0)
	setBigSink(src, screens.BigSource+1000, at.Add(2*time.Second), 3000) // commit ages for half of them
	km := keymap.Default()
	st := kit.NewStyles(true)
	open := func() *screens.SinkScreen {
		s := screens.NewSinkScreen(&km, &st, "bench-sink")
		s.SetSize(160, 40)
		s.Refresh(src, at.Add(3*time.Second), true)
		return s
	}
	async, inPlace := open(), open()
	inPlace.List.Async = false
	if !async.List.Async {
		t.Fatal("a big group's screen works out filter and sort in place")
	}
	same := func(step string) {
		t.Helper()
		for async.List.Stale {
			async.ViewDone(async.ViewCmd()().(kit.ViewMsg))
		}
		if got, want := async.List.Rows(), inPlace.List.Rows(); !slices.Equal(got, want) {
			t.Fatalf("%s: %d rows off the UI goroutine, %d in place (or in another order)", step, len(got), len(want))
		}
		if got, want := async.View(), inPlace.View(); got != want {
			t.Fatalf("%s: screen\n%s\nwant\n%s", step, got, want)
		}
	}
	same("opened")
	for _, q := range []string{"1", "12", "s", "bench-sink-topic/5", "s", "", "s", "77"} {
		if q == "s" {
			async.CycleSort()
			inPlace.CycleSort()
		} else {
			async.SetFilter(q)
			inPlace.SetFilter(q)
		}
		if !async.List.Stale {
			t.Fatalf("%q: worked out on the UI goroutine", q)
		}
		same(q)
	}
	setBigSink(src, screens.BigSource+1000, at.Add(4*time.Second), 5000)
	async.Refresh(src, at.Add(5*time.Second), true)
	inPlace.Refresh(src, at.Add(5*time.Second), true)
	inPlace.List.Async = false
	same("after a poll moved commits")
}
