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
	"koff/ui/kit"
	"koff/ui/screens"
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
		if got, want := kit.DurWidth(d), len(kit.ShortDur(d)); got != want {
			t.Fatalf("durWidth(%v) = %d, shortDur %q", d, got, kit.ShortDur(d))
		}
		if d >= 0 {
			if got, want := kit.AgeWidth(d), ansi.StringWidth(kit.Age(now, now.Add(-d))); got != want {
				t.Fatalf("ageWidth(%v) = %d, age %q", d, got, kit.Age(now, now.Add(-d)))
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
	st := kit.NewStyles(true)
	id := model.ConnectorID{Topic: topic, Name: "mm2"}
	for _, w := range []int{200, 100} {
		s := screens.NewPartitionsScreen(&km, &st, id, 1, 0)
		s.SetSize(w, 40)
		s.Refresh(f.store, t0, true)
		var items []model.PartitionRow
		for _, r := range s.List.Items {
			items = append(items, *r)
		}
		want := model.StalePartitions(items, s.Report, t0)
		if len(want) == 0 || s.StaleN != len(want) {
			t.Fatalf("%d stale counted, the model finds %d", s.StaleN, len(want))
		}
		stale := map[model.PartitionID]bool{}
		wide, narrow := 0, 0
		for _, r := range want {
			stale[r.ID] = true
			wide = max(wide, ansi.StringWidth(s.RowFlags(r, true)))
			narrow = max(narrow, ansi.StringWidth(s.UpdatedCell(r, false)))
		}
		for _, r := range items {
			if s.IsStale(r) != stale[r.ID] {
				t.Fatalf("%s: stale %v, the model says %v", r.Partition, s.IsStale(r), stale[r.ID])
			}
		}
		if s.StaleWide != wide || s.StaleNarrow != narrow {
			t.Fatalf("widths %d, %d; the cells are %d, %d wide", s.StaleWide, s.StaleNarrow, wide, narrow)
		}
		// Counted again over a big connector's table, whose update times
		// and tombstones pass over the rows that cannot be stale.
		tbl := screens.ReadTable(f.store, id, nil, s.List.Search)
		if tbl.Times() == nil || len(tbl.Rows) != len(s.List.Items) {
			t.Fatal("no table of the connector's rows")
		}
		s.List.Items, s.Table = tbl.Rows, tbl
		s.CountStale(t0)
		if s.StaleN != len(want) || s.StaleWide != wide || s.StaleNarrow != narrow {
			t.Fatalf("over the table: %d stale, widths %d, %d; the rows give %d, %d, %d", s.StaleN, s.StaleWide, s.StaleNarrow, len(want), wide, narrow)
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
			got, want := cmp.Compare(screens.UnixNano(a), screens.UnixNano(b)), a.Compare(b)
			outside := func(x time.Time) int {
				switch {
				case x.Before(screens.MinUnixNano):
					return -1
				case x.After(screens.MaxUnixNano):
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
