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
)

// TestAsyncViewSameAsSync: a big connector's partitions screen, read off
// the UI goroutine and filtered and sorted there, shows exactly the rows
// (in the same order, with the same selection) as a screen that does it
// all in place; keys typed while a view is worked out are not lost, and a
// view of older rows is dropped.
func TestAsyncViewSameAsSync(t *testing.T) {
	src := bigStore(6000)
	km := keymap.Default()
	st := NewStyles(true)
	id := model.ConnectorID{Topic: "connect-offsets", Name: "mm2-primary.MirrorSourceConnector"}
	now := time.UnixMilli(1_796_000_000_000).Add(2 * time.Minute)
	load := func(s *partitionsScreen) {
		snap := &snapshot{Source: src, version: src.Version(), stats: src.Stats(), rest: src.REST(), conns: src.Connectors()}
		s.prefetch()(src, snap)
		s.refresh(snap, now, true)
	}
	async := newPartitionsScreen(&km, &st, id, 1, 0)
	async.SetSize(200, 60)
	load(async)
	if !async.list.async || !async.settled() {
		t.Fatal("a big connector's screen does not work off the UI goroutine")
	}
	sync := newPartitionsScreen(&km, &st, id, 1, 0)
	sync.SetSize(200, 60)
	sync.refresh(src, now, true)

	same := func(step string) {
		t.Helper()
		got, want := async.list.rows(), sync.list.rows()
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
			async.cycleSort()
			sync.cycleSort()
		} else {
			async.setFilter(q)
			sync.setFilter(q)
		}
		if !async.list.stale {
			t.Fatalf("%q: worked out in place", q)
		}
		cmd := async.viewCmd()
		var moved model.PartitionID
		if rng.Intn(2) == 0 { // a key moves the selection before the view lands
			async.handleKey(tea.KeyPressMsg{Code: tea.KeyDown})
			r, _ := async.list.selected()
			moved = r.ID
		}
		async.viewDone(cmd().(viewMsg))
		for !async.settled() { // the key after the view's start
			async.viewDone(async.viewCmd()().(viewMsg))
		}
		same(q)
		if r, _ := async.list.selected(); moved != (model.PartitionID{}) && r.ID != moved && contains(async.list.rows(), moved) {
			t.Fatalf("%q: the selection moved while filtering is lost: %v, want %v", q, r.ID, moved)
		}
	}
	// A view of the rows before a reload is dropped; new offsets of the
	// same partitions (what a reload carries over) sort anew.
	async.setFilter("region-3")
	sync.setFilter("region-3")
	cmd := async.viewCmd()
	var recs []store.Record
	for i := 0; i < 6000; i += 7 {
		k := mmKey(i)
		p := java.PartitionFor(k, 25)
		recs = append(recs, store.Record{Topic: "connect-offsets", Partition: p, Offset: src.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: p}),
			Key: k, Value: []byte(`{"offset":` + strconv.Itoa(7_000_000-i) + `}`), Time: now})
		src.Ingest(recs[len(recs)-1:])
	}
	load(async)
	sync.refresh(src, now, true)
	async.viewDone(cmd().(viewMsg))
	for !async.settled() {
		async.viewDone(async.viewCmd()().(viewMsg))
	}
	same("after a reload")
	// A reload that began before a re-sort lands in the new order.
	read := async.prefetch()
	async.cycleSort()
	sync.cycleSort()
	async.viewCmd() // its view is still under way when the reload lands
	snap := &snapshot{Source: src, version: src.Version(), stats: src.Stats(), rest: src.REST(), conns: src.Connectors()}
	read(src, snap)
	async.refresh(snap, now, true)
	if !async.settled() || !slices.IsSortedFunc(async.list.rows(), async.list.sorts[async.list.sort].cmp) {
		t.Fatalf("a reload begun before the re-sort to %s is not shown in it", async.list.sortName())
	}
	async.list.busy = false // the view under way is dropped when it lands
	same("a reload begun before a re-sort")
	for range 4 {
		async.cycleSort()
		sync.cycleSort()
		for !async.settled() {
			async.viewDone(async.viewCmd()().(viewMsg))
		}
		same("sort " + sync.list.sortName() + " after a reload")
		// What a reload carried over (the filter's texts, the partition
		// order) is what a screen opened now works out afresh.
		fresh := newPartitionsScreen(&km, &st, id, 1, 0)
		fresh.SetSize(200, 60)
		fresh.list.sort, fresh.list.filter = sync.list.sort, sync.list.filter
		fresh.refresh(src, now, true)
		if got, want := sync.list.rows(), fresh.list.rows(); !slices.EqualFunc(got, want, func(a, b prow) bool { return a.ID == b.ID }) {
			t.Fatalf("sort %s after a reload: the rows differ from a fresh screen's", sync.list.sortName())
		}
	}
}

func contains(rows []prow, id model.PartitionID) bool {
	for _, r := range rows {
		if r.ID == id {
			return true
		}
	}
	return false
}
