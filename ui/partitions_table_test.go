package ui

import (
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"koff/keymap"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
	"koff/ui/kit"
	"koff/ui/screens"
)

// TestPartitionTableSameAsFullRead: the partitions screen's table of a
// big connector, read through PartitionsSince while its records stream
// in, holds after every read exactly the rows of a full read (every
// field), the filter's texts, widths and counts of the whole rows, the
// partition order worked out afresh, and for every sort the order a full
// sort of the rows gives, whichever reads the orders were asked at (a
// merge over several reads), and for every filter the rows a search of
// them all picks: through new offsets of every width,
// tombstones, unreadable values, copies of a key in other partitions,
// new partitions, a new partition count and a Reset.
func TestPartitionTableSameAsFullRead(t *testing.T) {
	km := keymap.Default()
	st := kit.NewStyles(true)
	id := model.ConnectorID{Topic: "connect-offsets", Name: "mm2-primary.MirrorSourceConnector"}
	scr := screens.NewPartitionsScreen(&km, &st, id, 1, 0)
	values := []string{`{"offset":7}`, `{"offset":123456789012}`, `{"offset":-1}`, `{"offset":18446744073709551616}`, `{"offset":1.5e3}`,
		`{"a":"x","offset":2}`, "", "garbage", `{"offset":{"n":1}}`, "\x00"}
	for seed := range int64(6) {
		rng := rand.New(rand.NewSource(seed))
		src := bigStore(300)
		n := 300
		var tbl *screens.PartTable
		now := time.UnixMilli(1_796_000_000_000)
		for step := range 60 {
			var batch []store.Record
			for range rng.Intn(40) {
				i := rng.Intn(n + 20)
				if i >= n {
					n = i + 1 // new partitions
				}
				k := mmKey(i)
				p := java.PartitionFor(k, 25)
				if rng.Intn(10) == 0 {
					p = rng.Intn(25) // a copy in another partition
				}
				r := store.Record{Topic: "connect-offsets", Partition: p, Offset: src.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: p}),
					Key: k, Time: now.Add(time.Duration(step*100+rng.Intn(100)) * time.Millisecond)}
				if v := values[rng.Intn(len(values))]; v != "\x00" {
					r.Value = []byte(v)
				}
				batch = append(batch, r)
				src.Ingest(batch[len(batch)-1:])
			}
			switch rng.Intn(25) {
			case 0:
				src.SetTopicPartitions("connect-offsets", 24+rng.Intn(2))
			case 1: // the topic read again from scratch: the connector goes, then comes back
				src.Reset()
			}
			tbl = screens.ReadTable(src, id, tbl, scr.List.Search)
			full := src.Partitions(id)
			var got []model.PartitionRow
			for _, r := range tbl.Rows {
				got = append(got, *r)
			}
			want := slices.Clone(full)
			slices.SortFunc(got, screens.ByPartition)
			slices.SortFunc(want, screens.ByPartition)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d step %d: the table's rows are not those of a full read", seed, step)
			}
			if !slices.Equal(tbl.Hay, kit.MakeHay(scr.List.Search, tbl.Rows)) {
				t.Fatalf("seed %d step %d: the filter's texts differ from those made afresh", seed, step)
			}
			if g, w := tbl.Tally.Needs(), screens.MeasurePartitions(tbl.Rows); g != w {
				t.Fatalf("seed %d step %d: widths and counts %+v, measured afresh %+v", seed, step, g, w)
			}
			if tm, fresh := tbl.Times(), screens.TimesOf(tbl.Rows); !slices.Equal(tm.Updates, fresh.Updates) || !slices.Equal(tm.Deleted, fresh.Deleted) {
				t.Fatalf("seed %d step %d: the update times and tombstones differ from those made afresh", seed, step)
			}
			if step%10 == 9 { // the progress rates from the table's times, as from the rows
				at := now.Add(time.Duration(step*100) * time.Millisecond)
				if g, w := (screens.RateCache{}).Next(src, tbl.Rows, at, &kit.Yielder{}, tbl.Times()), (screens.RateCache{}).Next(src, tbl.Rows, at, nil, nil); !reflect.DeepEqual(g, w) {
					t.Fatalf("seed %d step %d: rates %+v, from the rows %+v", seed, step, g, w)
				}
			}
			if !slices.Equal(tbl.Rank, screens.PartitionRanks(tbl.Rows, nil)) {
				t.Fatalf("seed %d step %d: the partition order differs from one worked out afresh", seed, step)
			}
			for _, q := range []string{"region-0", "region-", "n-0", "/1", "partition\":1", "zzz"} {
				if rng.Intn(2) == 0 {
					continue // asked at other reads: kept over several
				}
				bits := tbl.Matches(q)
				for i, h := range tbl.Hay {
					if got := bits[i>>6]&(1<<(i&63)) != 0; got != strings.Contains(h, q) {
						t.Fatalf("seed %d step %d: filter %q picks row %d: %v", seed, step, q, i, got)
					}
				}
			}
			for i, so := range scr.List.Sorts {
				if rng.Intn(3) == 0 {
					continue // asked at other reads: merged over several
				}
				idx := make([]int32, len(tbl.Rows))
				for k := range idx {
					idx[k] = int32(k)
				}
				slices.SortStableFunc(idx, func(a, b int32) int { return so.Cmp(tbl.Rows[a], tbl.Rows[b]) })
				if order := tbl.Order(i); !slices.Equal(order, idx) {
					t.Fatalf("seed %d step %d: sort by %s differs from a full sort of the rows", seed, step, so.Name)
				}
			}
		}
	}
}

// TestMergeSortedSameAsSort: merging the moved items into the order of
// the others gives the sort of them all.
func TestMergeSortedSameAsSort(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for range 500 {
		n := rng.Intn(60)
		keys := make([]int, n)
		for i := range keys {
			keys[i] = rng.Intn(10)
		}
		cmpKeys := func(k []int) func(a, b int32) int {
			return func(a, b int32) int {
				if k[a] != k[b] {
					return k[a] - k[b]
				}
				return int(a - b)
			}
		}
		old := rng.Intn(n + 1)
		prev := make([]int32, old)
		for i := range prev {
			prev[i] = int32(i)
		}
		slices.SortFunc(prev, cmpKeys(keys))
		var moved []int32
		for i := range n {
			if i >= old || rng.Intn(4) == 0 {
				keys[i] = rng.Intn(10)
				moved = append(moved, int32(i))
			}
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortFunc(want, cmpKeys(keys))
		if got := screens.MergeSorted(prev, moved, n, cmpKeys(keys)); !slices.Equal(got, want) {
			t.Fatalf("keys %v, moved %v: merged %v, sorted %v", keys, moved, got, want)
		}
	}
}

// TestSortPlacesSameAsCompare: the sort of a table's places by keys as
// numbers gives the order of a stable sort by the table's comparator, for
// every sort and any set of places: offsets that tie on their first bytes
// past the shared prefix, rows without an offset, equal update times.
func TestSortPlacesSameAsCompare(t *testing.T) {
	km := keymap.Default()
	st := kit.NewStyles(true)
	id := model.ConnectorID{Topic: "connect-offsets", Name: "mm2-primary.MirrorSourceConnector"}
	scr := screens.NewPartitionsScreen(&km, &st, id, 1, 0)
	values := []string{`{"offset":12345678901234}`, `{"offset":12345678901235}`, `{"offset":123456789012345}`, `{"offset":7}`,
		`{"offset":-1}`, `{"offset":1.5e3}`, `{"a":"x","offset":2}`, "", "garbage", "\x00"}
	for seed := range int64(8) {
		rng := rand.New(rand.NewSource(seed))
		src := bigStore(200)
		now := time.UnixMilli(1_796_000_000_000)
		var tbl *screens.PartTable
		for step := range 6 {
			for range 80 {
				k := mmKey(rng.Intn(220))
				p := java.PartitionFor(k, 25)
				r := store.Record{Topic: "connect-offsets", Partition: p, Offset: src.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: p}),
					Key: k, Time: now.Add(time.Duration(rng.Intn(5)) * time.Second)}
				if v := values[rng.Intn(len(values))]; v != "\x00" {
					r.Value = []byte(v)
				}
				src.Ingest([]store.Record{r})
			}
			tbl = screens.ReadTable(src, id, tbl, scr.List.Search)
			for i := range scr.List.Sorts {
				var places []int32
				for k := range tbl.Rows {
					if step == 0 || rng.Intn(3) == 0 {
						places = append(places, int32(k))
					}
				}
				want := slices.Clone(places)
				slices.SortStableFunc(want, tbl.Compare(i))
				if got := tbl.SortPlaces(i, places, &kit.Yielder{}); !slices.Equal(got, want) {
					t.Fatalf("seed %d step %d sort %d: %v, the comparator's sort %v", seed, step, i, got, want)
				}
			}
		}
	}
}
