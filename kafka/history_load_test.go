package kafka

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"koff/model"
	"koff/model/store"
)

// One history read can load the Store as it reads (koff set
// --to-datetime reads the topic once, not twice): the Store it loads,
// and the Tailer then going on from where the read ended, hold what a
// Tailer reading from the start holds, in both of the Tailer's modes,
// and the records written after the read are the Tailer's.
func TestAHistoryReadLoadsTheStoreTheTailerWould(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "connect-offsets", 3)
	for p := range 3 {
		var recs []kv
		for i := range 3000 {
			recs = append(recs, kv{key: key(fmt.Sprintf("c%d", i%3), i%40), value: fmt.Sprintf(`{"offset":%d}`, i), tombstone: i%401 == 0})
		}
		produce(t, addr, "connect-offsets", p, recs...)
	}
	produce(t, addr, "connect-offsets", 1, kv{key: "not a key", value: "{"})
	ctx := context.Background()
	cfg := Config{Brokers: []string{addr}}
	rows := func(s *store.Store) map[string][]model.PartitionRow {
		out := map[string][]model.PartitionRow{}
		for _, c := range []string{"c0", "c1", "c2"} {
			out[c] = s.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: c})
		}
		return out
	}
	for _, latest := range []int{0, 16} {
		ref := store.NewStore(store.StoreOptions{OneShot: latest > 0})
		loaded := store.NewStore(store.StoreOptions{OneShot: latest > 0})
		tl := NewTailer(cfg, []string{"connect-offsets"}, ref, TailerOptions{Latest: latest})
		tctx, cancel := context.WithCancel(ctx)
		go tl.Run(tctx)
		<-tl.CaughtUp()

		kept := 0
		logs, err := cfg.ReadHistoryLoading(ctx, "connect-offsets", &HistoryLoad{Handler: loaded, Latest: latest},
			func(k []byte) bool { return string(k) == key("c1", 7) }, func(*HistoryRecord) error { kept++; return nil })
		if err != nil {
			t.Fatal(err)
		}
		if kept == 0 {
			t.Fatal("the read handed on none of the key kept")
		}
		if got, want := rows(loaded), rows(ref); !reflect.DeepEqual(got, want) {
			for c := range got {
				for i := range got[c] {
					g, w := reflect.ValueOf(got[c][i]), reflect.ValueOf(want[c][i])
					for f := 0; f < g.NumField(); f++ {
						if !reflect.DeepEqual(g.Field(f).Interface(), w.Field(f).Interface()) {
							t.Errorf("latest %d: %s %s: %s %v, the Tailer's %v", latest, c, got[c][i].ID, g.Type().Field(f).Name, g.Field(f).Interface(), w.Field(f).Interface())
						}
					}
				}
			}
		}
		if got, want := loaded.Stats().Unparseable, ref.Stats().Unparseable; got != want || got != 1 {
			t.Errorf("latest %d: %d unparseable records, the Tailer's Store %d (want 1)", latest, got, want)
		}
		// Written after the read: the Tailer going on from its ends reads
		// it, and nothing twice.
		produce(t, addr, "connect-offsets", 2, kv{key: key("c2", 3), value: `{"offset":99}`})
		from := map[model.TopicPartition]int64{}
		for _, l := range logs {
			from[l.TopicPartition] = l.End
		}
		on := NewTailer(cfg, []string{"connect-offsets"}, loaded, TailerOptions{Latest: latest, From: from})
		go on.Run(tctx)
		<-on.CaughtUp()
		deadline := time.Now().Add(10 * time.Second)
		for !reflect.DeepEqual(rows(loaded), rows(ref)) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if got, want := rows(loaded), rows(ref); !reflect.DeepEqual(got, want) {
			for c := range got {
				for i := range got[c] {
					if !reflect.DeepEqual(got[c][i], want[c][i]) {
						t.Errorf("latest %d: after the Tailer went on from the read's ends, the Store differs from the Tailer's:\n%+v\n%+v", latest, got[c][i], want[c][i])
						break
					}
				}
			}
		}
		if got, want := loaded.Stats().Records, ref.Stats().Records; got != want {
			t.Errorf("latest %d: %d records read, the Tailer's Store %d: some were read twice or not at all", latest, got, want)
		}
		cancel()
	}
}
