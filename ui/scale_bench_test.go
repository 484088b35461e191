package ui

import (
	encjson "encoding/json"
	"fmt"
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

// mmKey is the key of source partition i of the MirrorMaker connector of
// bigStore (1,000 topics of up to 1,000 partitions).
func mmKey(i int) []byte {
	return java.EncodeKey("mm2-primary.MirrorSourceConnector", java.HashMapOrder(java.Object{
		{Name: "cluster", Value: "primary"}, {Name: "topic", Value: fmt.Sprintf("orders.region-%d", i/1000)},
		{Name: "partition", Value: encjson.Number(strconv.Itoa(i % 1000))}}))
}

// bigStore is a Store holding one MirrorMaker connector of n source
// partitions (1,000 topics of n/1,000 partitions), spread over 25
// partitions of the offsets topic as a worker writes them.
func bigStore(n int) *store.Store {
	s := store.NewStore(store.StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	base := time.UnixMilli(1_796_000_000_000)
	var batch []store.Record
	offs := make([]int64, 25)
	for i := 0; i < n; i++ {
		k := mmKey(i)
		p := java.PartitionFor(k, 25)
		batch = append(batch, store.Record{Topic: "connect-offsets", Partition: p, Offset: offs[p], Key: k,
			Value: []byte(`{"offset":` + strconv.Itoa(1000+i*7%100000) + `}`), Time: base.Add(time.Duration(i) * time.Millisecond)})
		offs[p]++
		if len(batch) == 1000 {
			s.Ingest(batch)
			batch = nil
		}
	}
	s.Ingest(batch)
	return s
}

// BenchmarkPartitions100k measures the partitions screen of a connector
// with 100,000 source partitions at 200x60: View() (only the visible rows
// are rendered), a refresh in place after the Store changed, a reload as
// the dashboard makes it of a big Source (read and worked out off the UI
// goroutine, then taken in) after 1% and 50% of the partitions got a new
// offset, a re-sort and a filter key worked out as the dashboard does for
// a big Source (from what its reloads keep, each after a reload), and one
// key typed into the filter and a re-sort worked out in place.
//
//	go test ./ui -run XXX -bench Partitions100k -benchtime 10x
func BenchmarkPartitions100k(b *testing.B) {
	n := 100_000
	if testing.Short() { // CI: that it runs, not the figure
		n = 5_000
	}
	src := bigStore(n)
	km := keymap.Default()
	st := kit.NewStyles(true)
	id := model.ConnectorID{Topic: "connect-offsets", Name: "mm2-primary.MirrorSourceConnector"}
	now := time.UnixMilli(1_796_000_000_000).Add(2 * time.Minute)
	open := func() *screens.PartitionsScreen {
		s := screens.NewPartitionsScreen(&km, &st, id, 1, 0)
		s.SetSize(200, 60)
		s.Refresh(src, now, true)
		return s
	}
	b.Run("View", func(b *testing.B) {
		s := open()
		b.ResetTimer()
		for range b.N {
			_ = s.View()
		}
	})
	b.Run("Refresh", func(b *testing.B) {
		s := open()
		b.ResetTimer()
		for range b.N {
			s.Refresh(src, now, true)
		}
	})
	// A reload off the UI goroutine, as the dashboard does it for a big
	// Source (the snapshot's read and work, then taking it in), after
	// new offsets of some of the partitions: what every reload costs
	// while records stream in.
	for _, changed := range []int{n / 100, n / 2} {
		b.Run(fmt.Sprintf("Reload/%d-changed", changed), func(b *testing.B) {
			s := open()
			keys := make([][]byte, n)
			for i := range keys {
				keys[i] = mmKey(i)
			}
			var inUpdate time.Duration
			load := func() {
				snap := &screens.Snapshot{Source: src, SourceVersion: src.Version(), At: now}
				s.Prefetch()(src, snap)
				start := time.Now()
				s.Refresh(snap, now, true)
				inUpdate += time.Since(start)
			}
			load()
			inUpdate = 0
			k := 0
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				var batch []store.Record
				for range changed {
					key := keys[k%n]
					p := java.PartitionFor(key, 25)
					batch = append(batch, store.Record{Topic: "connect-offsets", Partition: p, Offset: src.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: p}),
						Key: key, Value: []byte(`{"offset":` + strconv.Itoa(200000+k) + `}`), Time: now})
					src.Ingest(batch[len(batch)-1:])
					k++
				}
				b.StartTimer()
				load()
			}
			// The part of it on the UI goroutine: taking the snapshot in.
			b.ReportMetric(float64(inUpdate)/float64(b.N)/float64(time.Millisecond), "update-ms/op")
		})
	}
	// A re-sort and a filter key as the dashboard works them out for a big
	// Source (off the UI goroutine, from the table its reloads keep),
	// each after a reload that brought 1,000 new offsets.
	for _, kind := range []string{"SortAfterReload", "FilterKeyAfterReload"} {
		b.Run(kind, func(b *testing.B) {
			s := open()
			keys := make([][]byte, n)
			for i := range keys {
				keys[i] = mmKey(i)
			}
			load := func() {
				snap := &screens.Snapshot{Source: src, SourceVersion: src.Version(), At: now}
				s.Prefetch()(src, snap)
				s.Refresh(snap, now, true)
			}
			load()
			qs := []string{"r", "re", "reg", "regi", "regio", "region", "region-", "region-4", "region-42", "region-4", "region-", ""}
			k := 0
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				var batch []store.Record
				for range 1000 {
					key := keys[k%n]
					p := java.PartitionFor(key, 25)
					batch = append(batch, store.Record{Topic: "connect-offsets", Partition: p, Offset: src.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: p}),
						Key: key, Value: []byte(`{"offset":` + strconv.Itoa(300000+k) + `}`), Time: now})
					src.Ingest(batch[len(batch)-1:])
					k += 97
				}
				load()
				b.StartTimer()
				if kind == "SortAfterReload" {
					s.CycleSort()
				} else {
					s.SetFilter(qs[i%len(qs)])
				}
				for !s.Settled() {
					s.ViewDone(s.ViewCmd()().(kit.ViewMsg))
				}
				_ = s.View()
			}
		})
	}
	b.Run("FilterKey", func(b *testing.B) {
		s := open()
		qs := []string{"r", "re", "reg", "regi", "regio", "region", "region-", "region-4", "region-42", ""}
		b.ResetTimer()
		for i := range b.N {
			s.SetFilter(qs[i%len(qs)])
			_ = s.View()
		}
	})
	b.Run("Sort", func(b *testing.B) {
		s := open()
		b.ResetTimer()
		for range b.N {
			s.CycleSort()
			_ = s.View()
		}
	})
	b.Run("KeyDown", func(b *testing.B) {
		s := open()
		b.ResetTimer()
		for range b.N {
			s.HandleKey(tea.KeyPressMsg{Code: tea.KeyDown})
			_ = s.View()
		}
	})
}

// BenchmarkPartitions100kIdle is the partitions screen of a MirrorMaker
// connector whose 100,000 source partitions stopped advancing but ten,
// which flush every 10 s: a key, and a tick of the clock (the ages and the
// count of partitions not advancing move with it).
//
//	go test ./ui -run XXX -bench Partitions100kIdle -benchtime 20x
func BenchmarkPartitions100kIdle(b *testing.B) {
	n := 100_000
	if testing.Short() { // CI: that it runs, not the figure
		n = 5_000
	}
	src := bigStore(n)
	base := time.UnixMilli(1_796_000_000_000)
	for i := range 30 { // 10 partitions flush every 10 s for 5 minutes after
		at := base.Add(time.Hour + time.Duration(i)*10*time.Second)
		var recs []store.Record
		for p := range 10 {
			k := mmKey(p)
			tp := java.PartitionFor(k, 25)
			recs = append(recs, store.Record{Topic: "connect-offsets", Partition: tp, Offset: src.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: tp}),
				Key: k, Value: []byte(`{"offset":` + strconv.Itoa(i) + `}`), Time: at})
			src.Ingest(recs[len(recs)-1:])
		}
	}
	km := keymap.Default()
	st := kit.NewStyles(true)
	id := model.ConnectorID{Topic: "connect-offsets", Name: "mm2-primary.MirrorSourceConnector"}
	now := base.Add(time.Hour + 300*time.Second)
	s := screens.NewPartitionsScreen(&km, &st, id, 1, 0)
	s.SetSize(200, 60)
	s.Refresh(src, now, true)
	if s.StaleN < n-10 {
		b.Fatalf("%d partitions not advancing, want %d", s.StaleN, n-10)
	}
	b.Run("KeyDown", func(b *testing.B) {
		for range b.N {
			s.HandleKey(tea.KeyPressMsg{Code: tea.KeyDown})
		}
	})
	b.Run("Tick", func(b *testing.B) {
		for range b.N {
			s.Refresh(src, now, false)
		}
	})
}
