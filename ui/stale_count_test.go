package ui

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"koff/keymap"
	"koff/model"
)

// TestWidthsWithoutStrings: the widths worked out without making the
// texts are the widths of the texts.
func TestWidthsWithoutStrings(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	now := time.UnixMilli(1_796_000_000_000)
	ds := []time.Duration{0, -time.Second, time.Millisecond, 999 * time.Millisecond, time.Second, 99499 * time.Millisecond,
		99500 * time.Millisecond, 100 * time.Second, 59 * time.Minute, 99*time.Minute + 29*time.Second, 100 * time.Minute,
		time.Hour, 47*time.Hour + 31*time.Minute, 48 * time.Hour, 1000 * 24 * time.Hour}
	for range 20000 {
		ds = append(ds, time.Duration(rng.Int63n(int64(400*24*time.Hour))))
	}
	for _, d := range ds {
		if got, want := durWidth(d), len(shortDur(d)); got != want {
			t.Fatalf("durWidth(%v) = %d, shortDur %q", d, got, shortDur(d))
		}
		if d >= 0 {
			if got, want := ageWidth(d), ansi.StringWidth(age(now, now.Add(-d))); got != want {
				t.Fatalf("ageWidth(%v) = %d, age %q", d, got, age(now, now.Add(-d)))
			}
		}
	}
}

// TestStaleCountedAsModelFindsThem: the partitions screen counts the
// partitions model.StalePartitions finds, marks exactly those, and sizes
// the cells that say so as wide as the widest of them.
func TestStaleCountedAsModelFindsThem(t *testing.T) {
	f := newFixture()
	// Flushes every 10 s for 5 minutes; some partitions stop along the way.
	for i := range 30 {
		at := t0.Add(-time.Duration(300-10*i) * time.Second)
		for p := range 40 {
			if p%3 == 0 && i > p/3 {
				continue // stopped after flush p/3
			}
			f.put(at, fmt.Sprintf(`["mm2",{"topic":"t","partition":%d}]`, p), fmt.Sprintf(`{"offset":%d}`, i))
		}
	}
	km := keymap.Default()
	st := NewStyles(true)
	id := model.ConnectorID{Topic: topic, Name: "mm2"}
	for _, w := range []int{200, 100} {
		s := newPartitionsScreen(&km, &st, id, 1, 0)
		s.SetSize(w, 40)
		s.refresh(f.store, t0, true)
		var items []model.PartitionRow
		for _, r := range s.list.items {
			items = append(items, *r)
		}
		want := model.StalePartitions(items, s.report, t0)
		if len(want) == 0 || s.staleN != len(want) {
			t.Fatalf("%d stale counted, the model finds %d", s.staleN, len(want))
		}
		stale := map[model.PartitionID]bool{}
		wide, narrow := 0, 0
		for _, r := range want {
			stale[r.ID] = true
			wide = max(wide, ansi.StringWidth(s.rowFlags(r, true)))
			narrow = max(narrow, ansi.StringWidth(s.updatedCell(r, false)))
		}
		for _, r := range items {
			if s.isStale(r) != stale[r.ID] {
				t.Fatalf("%s: stale %v, the model says %v", r.Partition, s.isStale(r), stale[r.ID])
			}
		}
		if s.staleWide != wide || s.staleNarrow != narrow {
			t.Fatalf("widths %d, %d; the cells are %d, %d wide", s.staleWide, s.staleNarrow, wide, narrow)
		}
		// Counted again over a big connector's table, whose update times
		// and tombstones pass over the rows that cannot be stale.
		tbl := readTable(f.store, id, nil, s.list.search)
		if tbl.times() == nil || len(tbl.rows) != len(s.list.items) {
			t.Fatal("no table of the connector's rows")
		}
		s.list.items, s.table = tbl.rows, tbl
		s.countStale(t0)
		if s.staleN != len(want) || s.staleWide != wide || s.staleNarrow != narrow {
			t.Fatalf("over the table: %d stale, widths %d, %d; the rows give %d, %d, %d", s.staleN, s.staleWide, s.staleNarrow, len(want), wide, narrow)
		}
	}
}

// TestUnixNanoKeepsOrder: the update times as numbers order as the times
// do, those beyond the years UnixNano gives included (a record's timestamp
// can be any int64 of milliseconds).
func TestUnixNanoKeepsOrder(t *testing.T) {
	times := []time.Time{{}, time.UnixMilli(math.MinInt64), time.UnixMilli(-1), time.UnixMilli(0), time.Unix(0, math.MinInt64),
		time.Unix(0, math.MinInt64).Add(-1), time.Unix(0, math.MaxInt64), time.Unix(0, math.MaxInt64).Add(1), time.UnixMilli(math.MaxInt64),
		time.UnixMilli(1_796_000_000_000), time.Date(1677, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2263, 1, 1, 0, 0, 0, 0, time.UTC)}
	for _, a := range times {
		for _, b := range times {
			got, want := cmp.Compare(unixNano(a), unixNano(b)), a.Compare(b)
			outside := func(x time.Time) int {
				switch {
				case x.Before(minUnixNano):
					return -1
				case x.After(maxUnixNano):
					return 1
				}
				return 0
			}
			if o := outside(a); o != 0 && o == outside(b) {
				want = 0 // both beyond the same end: one number
			}
			if got != want {
				t.Fatalf("%v vs %v: %d, the times %d", a, b, got, want)
			}
		}
	}
}
