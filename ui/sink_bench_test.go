package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"koff/keymap"
	"koff/model"
	"koff/model/store"
	"koff/ui/kit"
	"koff/ui/screens"
)

// bigSinkStore is a Store whose sink bench-sink's group has committed
// offsets on n partitions of one topic, as the lag poller leaves it.
func bigSinkStore(n int, at time.Time, moved int) *store.Store {
	s := store.NewStore(store.StoreOptions{})
	setBigSink(s, n, at, moved)
	return s
}

// setBigSink records a poll of bench-sink's group in which the first
// moved partitions committed again.
func setBigSink(s *store.Store, n int, at time.Time, moved int) {
	p := model.GroupPoll{Group: "connect-bench-sink", State: "Stable", Members: 1, Partitions: make([]model.GroupPartition, n)}
	for i := range p.Partitions {
		c := int64(1000 + i%977)
		if i < moved {
			c += at.Unix() % 1000
		}
		p.Partitions[i] = model.GroupPartition{TopicPartition: model.TopicPartition{Topic: "bench-sink-topic", Partition: i}, Committed: c, End: c + int64(i%13)}
	}
	s.SetGroups(at, []model.GroupPoll{p})
}

// BenchmarkSink100k measures the sink screen of a sink whose group reads
// 100,000 partitions at 200x60, as BenchmarkPartitions100k does the
// partitions screen: View(), a reload after a poll in which 1% of the
// commits moved (the Store's read and the screen's), and the keys an
// operator presses on it (down, a filter key, a re-sort), each with its
// View.
//
//	go test ./ui -run XXX -bench Sink100k -benchtime 10x
func BenchmarkSink100k(b *testing.B) {
	n := 100_000
	if testing.Short() {
		n = 5_000
	}
	at := time.UnixMilli(1_796_000_000_000)
	src := bigSinkStore(n, at, 0)
	km := keymap.Default()
	st := kit.NewStyles(true)
	open := func() *screens.SinkScreen {
		s := screens.NewSinkScreen(&km, &st, "bench-sink")
		s.SetSize(200, 60)
		s.Refresh(src, at, true)
		return s
	}
	b.Run("View", func(b *testing.B) {
		s := open()
		for range b.N {
			_ = s.View()
		}
	})
	b.Run("Reload/1%-moved", func(b *testing.B) {
		s := open()
		for i := range b.N {
			b.StopTimer()
			setBigSink(src, n, at.Add(time.Duration(i+1)*2*time.Second), n/100)
			b.StartTimer()
			s.Refresh(src, at, true)
			_ = s.View()
		}
	})
	b.Run("KeyDown", func(b *testing.B) {
		s := open()
		down := tea.KeyPressMsg{Code: tea.KeyDown}
		for range b.N {
			s.HandleKey(down)
			_ = s.View()
		}
	})
	// A filter key and a re-sort: what the key itself costs on the UI
	// goroutine (key-ms/op), and its rows worked out off it as the
	// dashboard does for a big group (the whole op).
	b.Run("FilterKey", func(b *testing.B) {
		s := open()
		var onUI time.Duration
		for i := range b.N {
			start := time.Now()
			s.SetFilter([]string{"1", "12", "123"}[i%3])
			_ = s.View()
			onUI += time.Since(start)
			offUI(s)
			_ = s.View()
		}
		b.ReportMetric(float64(onUI)/float64(b.N)/float64(time.Millisecond), "key-ms/op")
	})
	b.Run("Sort", func(b *testing.B) {
		s := open()
		var onUI time.Duration
		for range b.N {
			start := time.Now()
			s.CycleSort()
			_ = s.View()
			onUI += time.Since(start)
			offUI(s)
			_ = s.View()
		}
		b.ReportMetric(float64(onUI)/float64(b.N)/float64(time.Millisecond), "key-ms/op")
	})
}

// offUI works out, as the dashboard's command does, the rows a key left
// to be worked out off the UI goroutine.
func offUI(s any) {
	if v, ok := s.(viewer); ok {
		if cmd := v.ViewCmd(); cmd != nil {
			v.ViewDone(cmd().(kit.ViewMsg))
		}
	}
}
