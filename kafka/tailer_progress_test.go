package kafka

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"koff/model"
	"koff/model/store"
)

// heldStore is a Store whose Ingest of the second chunk waits, once that
// is ingested, until released.
type heldStore struct {
	*store.Store
	chunks  int
	first   int64         // records held after the first chunk
	held    chan struct{} // closed when the second chunk waits
	release chan struct{}
}

func (h *heldStore) Ingest(recs []store.Record) {
	h.Store.Ingest(recs)
	switch h.chunks++; h.chunks {
	case 1:
		h.first = h.Stats().Records
	case 2:
		close(h.held)
		<-h.release
	}
}

// TestProgressCountsEachChunkIngested: while catching up, the records the
// Tailer says it read are those the Store took, chunk by chunk, not those
// of the fetches it finished: with the second chunk of a fetch of several
// held in the Store, the status already counts the first.
func TestProgressCountsEachChunkIngested(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "connect-offsets", 1)
	n := 3*decodeChunk + 100
	var recs []kv
	for i := range n {
		recs = append(recs, kv{key: fmt.Sprintf(`["src",{"table":"t%d"}]`, i), value: `{"offset":1}`})
	}
	for i := 0; i < n; i += 1000 {
		produce(t, addr, "connect-offsets", 0, recs[i:min(i+1000, n)]...)
	}
	h := &heldStore{Store: store.NewStore(store.StoreOptions{}), held: make(chan struct{}), release: make(chan struct{})}
	tl := NewTailer(Config{Brokers: []string{addr}}, []string{"connect-offsets"}, h, TailerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { tl.Run(ctx); close(done) }()
	var once sync.Once
	free := func() { once.Do(func() { close(h.release) }) }
	defer func() {
		free() // a failure must not leave the Tailer waiting
		cancel()
		<-done
	}()
	select {
	case <-h.held:
	case <-time.After(15 * time.Second):
		t.Fatalf("no second chunk; status %+v", tl.Status())
	}
	if held := h.Stats().Records; h.first == 0 || held <= h.first || held >= int64(n) {
		t.Fatalf("the fetch was not of several chunks: %d then %d of %d records held", h.first, held, n)
	}
	waitFor(t, "the progress to count the first chunk", 10*time.Second, func() bool {
		st := tl.Status()
		return st.State == model.TailCatchingUp && st.Read == h.first
	})
	free()
	waitFor(t, "live", 10*time.Second, func() bool { st := tl.Status(); return st.State == model.TailLive && st.Read == int64(n) })
}
