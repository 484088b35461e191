package ui

import (
	"math/rand"
	"slices"
	"strconv"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"koff/keymap"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
	"koff/ui/kit"
	"koff/ui/screens"
)

// TestAsyncViewSameAsSync: a big connector's partitions screen, read off
// the UI goroutine and filtered and sorted there, shows exactly the rows
// (in the same order, with the same selection) as a screen that does it
// all in place; keys typed while a view is worked out are not lost, and a
// view of older rows is dropped.
func TestAsyncViewSameAsSync(t *testing.T) {
	src := bigStore(6000)
	km := keymap.Default()
	st := kit.NewStyles(true)
	id := model.ConnectorID{Topic: "connect-offsets", Name: "mm2-primary.MirrorSourceConnector"}
	now := time.UnixMilli(1_796_000_000_000).Add(2 * time.Minute)
	load := func(s *screens.PartitionsScreen) {
		snap := &screens.Snapshot{Source: src, SourceVersion: src.Version(), SourceStats: src.Stats(), RESTStatus: src.REST(), Conns: src.Connectors()}
		s.Prefetch()(src, snap)
		s.Refresh(snap, now, true)
	}
	async := screens.NewPartitionsScreen(&km, &st, id, 1, 0)
	async.SetSize(200, 60)
	load(async)
	if !async.List.Async || !async.Settled() {
		t.Fatal("a big connector's screen does not work off the UI goroutine")
	}
	sync := screens.NewPartitionsScreen(&km, &st, id, 1, 0)
	sync.SetSize(200, 60)
	sync.Refresh(src, now, true)

	same := func(step string) {
		t.Helper()
		got, want := async.List.Rows(), sync.List.Rows()
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows async, %d in place", step, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID {
				t.Fatalf("%s: row %d is %v async, %v in place", step, i, got[i].ID, want[i].ID)
			}
		}
	}
	same("loaded")
	rng := rand.New(rand.NewSource(1))
	steps := []string{"r", "re", "region-1", "region-12", "region-1", "", "7", "s", "s", "\"partition\":9", "s", "", "s"}
	for _, q := range steps {
		if q == "s" {
			async.CycleSort()
			sync.CycleSort()
		} else {
			async.SetFilter(q)
			sync.SetFilter(q)
		}
		if !async.List.Stale {
			t.Fatalf("%q: worked out in place", q)
		}
		cmd := async.ViewCmd()
		var moved model.PartitionID
		if rng.Intn(2) == 0 { // a key moves the selection before the view lands
			async.HandleKey(tea.KeyPressMsg{Code: tea.KeyDown})
			r, _ := async.List.Selected()
			moved = r.ID
		}
		async.ViewDone(cmd().(kit.ViewMsg))
		for !async.Settled() { // the key after the view's start
			async.ViewDone(async.ViewCmd()().(kit.ViewMsg))
		}
		same(q)
		if r, _ := async.List.Selected(); moved != (model.PartitionID{}) && r.ID != moved && contains(async.List.Rows(), moved) {
			t.Fatalf("%q: the selection moved while filtering is lost: %v, want %v", q, r.ID, moved)
		}
	}
	// A view of the rows before a reload is dropped; new offsets of the
	// same partitions (what a reload carries over) sort anew.
	async.SetFilter("region-3")
	sync.SetFilter("region-3")
	cmd := async.ViewCmd()
	var recs []store.Record
	for i := 0; i < 6000; i += 7 {
		k := mmKey(i)
		p := java.PartitionFor(k, 25)
		recs = append(recs, store.Record{Topic: "connect-offsets", Partition: p, Offset: src.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: p}),
			Key: k, Value: []byte(`{"offset":` + strconv.Itoa(7_000_000-i) + `}`), Time: now})
		src.Ingest(recs[len(recs)-1:])
	}
	load(async)
	sync.Refresh(src, now, true)
	async.ViewDone(cmd().(kit.ViewMsg))
	for !async.Settled() {
		async.ViewDone(async.ViewCmd()().(kit.ViewMsg))
	}
	same("after a reload")
	// A reload that began before a re-sort lands in the new order.
	read := async.Prefetch()
	async.CycleSort()
	sync.CycleSort()
	async.ViewCmd() // its view is still under way when the reload lands
	snap := &screens.Snapshot{Source: src, SourceVersion: src.Version(), SourceStats: src.Stats(), RESTStatus: src.REST(), Conns: src.Connectors()}
	read(src, snap)
	async.Refresh(snap, now, true)
	if !async.Settled() || !slices.IsSortedFunc(async.List.Rows(), async.List.Sorts[async.List.Sort].Cmp) {
		t.Fatalf("a reload begun before the re-sort to %s is not shown in it", async.List.SortName())
	}
	async.List.Busy = false // the view under way is dropped when it lands
	same("a reload begun before a re-sort")
	for range 4 {
		async.CycleSort()
		sync.CycleSort()
		for !async.Settled() {
			async.ViewDone(async.ViewCmd()().(kit.ViewMsg))
		}
		same("sort " + sync.List.SortName() + " after a reload")
		// What a reload carried over (the filter's texts, the partition
		// order) is what a screen opened now works out afresh.
		fresh := screens.NewPartitionsScreen(&km, &st, id, 1, 0)
		fresh.SetSize(200, 60)
		fresh.List.Sort, fresh.List.Filter = sync.List.Sort, sync.List.Filter
		fresh.Refresh(src, now, true)
		if got, want := sync.List.Rows(), fresh.List.Rows(); !slices.EqualFunc(got, want, func(a, b screens.Prow) bool { return a.ID == b.ID }) {
			t.Fatalf("sort %s after a reload: the rows differ from a fresh screen's", sync.List.SortName())
		}
	}
}

func contains(rows []screens.Prow, id model.PartitionID) bool {
	for _, r := range rows {
		if r.ID == id {
			return true
		}
	}
	return false
}
