package edit

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"koff/edit/history"
	"koff/edit/plan"
	"koff/kafka"
	"koff/model/java"
	"koff/model/store"
)

// historyReaders are the Editor's readers of the offsets topics over a
// real broker, as the CLI wires them.
func historyReaders(cfg kafka.Config, fulls, follows *atomic.Int64) (history.ReadFunc, history.ReadFromFunc) {
	adapt := func(logs []kafka.RetainedLog) []history.RetainedLog {
		out := make([]history.RetainedLog, len(logs))
		for i, l := range logs {
			out[i] = history.RetainedLog{TopicPartition: l.TopicPartition, LogStart: l.LogStart, End: l.End, FirstGap: l.FirstGap}
		}
		return out
	}
	hand := func(fn func(*history.Record) error) func(*kafka.HistoryRecord) error {
		return func(k *kafka.HistoryRecord) error {
			return fn(&history.Record{Record: k.Record, LogAppendTime: k.LogAppendTime})
		}
	}
	full := func(ctx context.Context, topic string, keep func([]byte) bool, fn func(*history.Record) error) ([]history.RetainedLog, error) {
		fulls.Add(1)
		logs, err := cfg.ReadHistory(ctx, topic, keep, hand(fn))
		return adapt(logs), err
	}
	from := func(ctx context.Context, topic string, from []int64, keep func([]byte) bool, fn func(*history.Record) error) ([]history.RetainedLog, error) {
		follows.Add(1)
		logs, err := cfg.ReadHistoryFrom(ctx, topic, from, keep, hand(fn))
		return adapt(logs), err
	}
	return full, from
}

// streamedHistory is the partition's history as Editor.ReadHistory streams
// it from a read of the whole topic, kept as the detail keeps it.
func streamedHistory(t *testing.T, ed *Editor, connector string, partition java.Object, keep int) *history.PartitionHistory {
	t.Helper()
	out := &history.PartitionHistory{}
	got, err := ed.ReadHistory(context.Background(), history.Request{Connector: connector, Partitions: []java.Object{partition}}, func(c *history.Commit) error {
		out.Read++
		cc := *c
		cc.Summary = nil
		if c.Value != nil {
			cc.Value = append([]byte{}, c.Value...)
		}
		out.Commits = append(out.Commits, cc)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Kept as the share keeps a partition's history: the newest keep.
	sort.SliceStable(out.Commits, func(i, j int) bool { return history.NewerCommit(&out.Commits[i], &out.Commits[j]) })
	if keep > 0 && len(out.Commits) > keep {
		out.Commits = out.Commits[:keep]
	}
	out.Copies = got.Copies
	return out
}

// The history the dashboards share, followed by reading only what the
// topic gained, is the history a fresh read of the whole topic finds:
// after new commits, a stray copy, a tombstone, koff's own edit and a
// reload, and for a partition with more commits than are kept.
func TestSharedHistoryIsAFreshRead(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	var fulls, follows atomic.Int64
	h.ed.History, h.ed.HistoryFrom = historyReaders(h.kafka, &fulls, &follows)
	var reloaded atomic.Int64
	share := &history.Share{Reloaded: func() time.Time { return time.Unix(reloaded.Load(), 0) }}
	shared := *h.ed
	shared.Shared = share
	const keep = 5
	part := mustPartition(t, `{"table":"shop.orders"}`)
	key := `["jdbc",{"table":"shop.orders"}]`
	for i := range 4 {
		h.workerWrite(key, `{"incrementing":`+string(rune('1'+i))+`}`)
		h.workerWrite(`["jdbc",{"table":"shop.other"}]`, `{"incrementing":1}`)
	}
	same := func(when string) {
		t.Helper()
		got, err := shared.PartitionHistory(ctx, "jdbc", part, keep)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		fresh, err := h.ed.PartitionHistory(ctx, "jdbc", part, keep)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if !reflect.DeepEqual(got, fresh) {
			t.Fatalf("%s: the shared history\n%+v\nis not a fresh read's\n%+v", when, got, fresh)
		}
		if streamed := streamedHistory(t, h.ed, "jdbc", part, keep); !reflect.DeepEqual(got, streamed) {
			t.Fatalf("%s: the shared history\n%+v\nis not what ReadHistory streams\n%+v", when, got, streamed)
		}
	}
	same("first read")
	if f, fo := share.Reads(); f != 1 || fo != 0 {
		t.Fatalf("first read: %d reads from the start and %d follows, want 1 and 0", f, fo)
	}

	// New commits, a stray (other key bytes, and the key on a partition
	// its worker never writes), a tombstone, and an edit of koff's.
	h.workerWrite(key, `{"incrementing":9}`)
	h.workerWrite(`["jdbc", {"table":"shop.orders"}]`, `{"incrementing":2}`)
	wrong := (java.PartitionFor([]byte(key), 25) + 1) % 25
	h.write(wrong, key, `{"incrementing":3}`)
	p, err := h.ed.Plan(ctx, plan.Request{Connector: "jdbc", Kind: plan.KindSet, Items: []plan.Item{{Partition: part, Offset: mustOffset(t, `{"incrementing":42}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := h.ed.Apply(ctx, p); err != nil || !res.Verified {
		t.Fatalf("set: %v", err)
	}
	h.workerWrite(key, "")
	fullsBefore := fulls.Load()
	same("after new commits, strays, koff's edit and a tombstone")
	if f, fo := share.Reads(); f != 1 || fo != 1 {
		t.Errorf("after new commits: %d reads from the start and %d follows, want 1 and 1", f, fo)
	}
	got, _ := shared.PartitionHistory(ctx, "jdbc", part, keep)
	if got.Commits[0].Value != nil || got.Commits[1].Edit == nil || got.Read != 10 || len(got.Copies) != 3 {
		t.Errorf("the followed history lacks the tombstone, koff's edit or a copy: %+v", got)
	}
	if fulls.Load() != fullsBefore+2 { // the fresh read's and ReadHistory's, none of the share's
		t.Errorf("the share read the topic from the start to follow it (%d reads)", fulls.Load()-fullsBefore)
	}

	// A reload: the history is read from the start again.
	reloaded.Store(time.Now().Unix())
	h.workerWrite(key, `{"incrementing":10}`)
	same("after a reload")
	if f, _ := share.Reads(); f != 2 {
		t.Errorf("after a reload: %d reads from the start, want 2", f)
	}
	h.workerWrite(key, `{"incrementing":11}`)
	same("followed after the reload")
}

// Four viewers of one partition's detail cause one read of the offsets
// topic, together or one after another, and none more while the
// partition does not move; a commit is one follow, read once for all.
func TestFourViewersCauseOneRead(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	var fulls, follows atomic.Int64
	h.ed.History, h.ed.HistoryFrom = historyReaders(h.kafka, &fulls, &follows)
	h.ed.Shared = &history.Share{}
	part := mustPartition(t, `{"table":"shop.orders"}`)
	key := `["jdbc",{"table":"shop.orders"}]`
	h.workerWrite(key, `{"incrementing":1}`)
	viewers := make([]Editor, 4)
	for i := range viewers {
		viewers[i] = *h.ed // koff serve's sessions copy the Editor
	}
	ask := func() {
		var wg sync.WaitGroup
		for i := range viewers {
			wg.Go(func() {
				if _, err := viewers[i].PartitionHistory(ctx, "jdbc", part, 500); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	ask()
	ask()
	if fulls.Load() != 1 || follows.Load() != 0 {
		t.Fatalf("4 viewers asking twice read the topic %d times from the start and followed it %d times, want 1 and 0", fulls.Load(), follows.Load())
	}
	h.workerWrite(key, `{"incrementing":2}`)
	ask()
	got, err := viewers[3].PartitionHistory(ctx, "jdbc", part, 500)
	if err != nil {
		t.Fatal(err)
	}
	if fulls.Load() != 1 || follows.Load() != 1 || got.Read != 2 {
		t.Errorf("a commit seen by 4 viewers: %d reads from the start, %d follows, %d commits; want 1, 1, 2", fulls.Load(), follows.Load(), got.Read)
	}
}

// What a viewer's refresh of a partition's history costs once a commit
// was made: a fresh read of the whole offsets topic, as each viewer did,
// against the shared history's follow of what the topic gained.
func BenchmarkPartitionHistoryRefresh(b *testing.B) {
	records := 200_000
	if testing.Short() {
		records = 2_000
	}
	h := newHarness(b)
	var fulls, follows atomic.Int64
	h.ed.History, h.ed.HistoryFrom = historyReaders(h.kafka, &fulls, &follows)
	ctx := context.Background()
	var batch []store.Record
	for i := range records {
		key := fmt.Sprintf(`["jdbc",{"table":"t%d"}]`, i%1000)
		batch = append(batch, store.Record{Topic: "connect-offsets", Partition: java.PartitionFor([]byte(key), 25), Key: []byte(key), Value: fmt.Appendf(nil, `{"incrementing":%d}`, i), Time: time.Now()})
		if len(batch) == 5000 || i == records-1 {
			if err := h.kafka.WriteRecords(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	part, err := plan.ParsePartition(`{"table":"t7"}`)
	if err != nil {
		b.Fatal(err)
	}
	key := `["jdbc",{"table":"t7"}]`
	commit := func(n int) { h.workerWrite(key, fmt.Sprintf(`{"incrementing":%d}`, records+n)) } // and the Store reads it
	for _, shared := range []bool{false, true} {
		name := "fresh-read"
		ed := *h.ed
		if shared {
			name, ed.Shared = "followed", &history.Share{}
		}
		b.Run(name, func(b *testing.B) {
			if _, err := ed.PartitionHistory(ctx, "jdbc", part, 500); err != nil {
				b.Fatal(err)
			}
			n := 0
			for b.Loop() {
				b.StopTimer()
				n++
				commit(n)
				b.StartTimer()
				if _, err := ed.PartitionHistory(ctx, "jdbc", part, 500); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
