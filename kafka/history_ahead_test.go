package kafka

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Reading partitions ahead hands on what a read of one fetch at a time
// does, record for record, with the same bounds: partitions of several
// fetches, an aborted transaction, a log start moved by delete-records,
// tombstones, an empty partition, and a filter on keys.
func TestHistoryReadAheadHandsOnWhatAReadInTurnDoes(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "connect-offsets", 6)
	pad := strings.Repeat("x", 200)
	for p := range 2 {
		var recs []kv
		for i := range 15000 { // about 3.5 MB: several fetches of 1 MB
			recs = append(recs, kv{key: key("big", i%50), value: fmt.Sprintf(`{"offset":%d,"pad":"%s"}`, i, pad), tombstone: i%997 == 0})
			if len(recs) == 2000 {
				produce(t, addr, "connect-offsets", p, recs...)
				recs = nil
			}
		}
		produce(t, addr, "connect-offsets", p, recs...)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.TransactionalID("connect-cluster-eos-0"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	for i, commit := range []bool{true, false, true} {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		r := &kgo.Record{Topic: "connect-offsets", Partition: 2, Key: []byte(key("eos", 0)), Value: fmt.Appendf(nil, `{"offset":%d}`, i)}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		produce(t, addr, "connect-offsets", 3, kv{key: key("late", i), value: `{"offset":1}`})
	}
	del := kmsg.NewPtrDeleteRecordsRequest()
	rt := kmsg.NewDeleteRecordsRequestTopic()
	rt.Topic = "connect-offsets"
	rp := kmsg.NewDeleteRecordsRequestTopicPartition()
	rp.Partition, rp.Offset = 3, 4
	rt.Partitions = append(rt.Partitions, rp)
	del.Topics = append(del.Topics, rt)
	del.TimeoutMillis = 10000
	if _, err := del.RequestWith(ctx, cl); err != nil {
		t.Fatal(err)
	}
	produce(t, addr, "connect-offsets", 5, kv{key: key("small", 0), value: `{"offset":1}`}, kv{key: key("small", 0), tombstone: true})

	type seen struct {
		Topic           string
		Partition       int
		Offset, Time    int64
		Key, Value      string
		Tombstone, Koff bool
		LogAppendTime   bool
	}
	read := func(ahead int, keep func([]byte) bool) ([]seen, []RetainedLog) {
		t.Helper()
		was := readAhead
		readAhead = ahead
		defer func() { readAhead = was }()
		var out []seen
		logs, err := Config{Brokers: []string{addr}}.ReadHistory(ctx, "connect-offsets", keep, func(r *HistoryRecord) error {
			out = append(out, seen{r.Topic, r.Partition, r.Offset, r.Time.UnixMilli(), string(r.Key), string(r.Value), r.Value == nil, r.Koff, r.LogAppendTime})
			return nil
		})
		if err != nil {
			t.Fatalf("read ahead %d: %v", ahead, err)
		}
		return out, logs
	}
	// A callback's error, or the command's end, stops the read there.
	stop := errors.New("stop")
	for _, cancelIt := range []bool{false, true} {
		rctx, cancel := context.WithCancel(ctx)
		n := 0
		_, err := Config{Brokers: []string{addr}}.ReadHistory(rctx, "connect-offsets", nil, func(r *HistoryRecord) error {
			if n++; n == 20000 {
				if cancelIt {
					cancel()
					return nil
				}
				return stop
			}
			return nil
		})
		cancel()
		if cancelIt && !errors.Is(err, context.Canceled) && (err == nil || !strings.Contains(err.Error(), "canceled")) || !cancelIt && err != stop {
			t.Errorf("cancelled %v: the read ended with %v after %d records", cancelIt, err, n)
		}
	}
	for _, keep := range []func([]byte) bool{nil, func(k []byte) bool { return !strings.Contains(string(k), "big") || k[len(k)-3]%2 == 0 }} {
		inTurn, inTurnLogs := read(0, keep)
		if len(inTurn) < 30000 {
			t.Fatalf("the read in turn handed on %d records", len(inTurn))
		}
		for _, ahead := range []int{1, 4, 8} {
			got, logs := read(ahead, keep)
			if !reflect.DeepEqual(logs, inTurnLogs) {
				t.Errorf("read ahead %d: logs %v, in turn %v", ahead, logs, inTurnLogs)
			}
			if len(got) != len(inTurn) {
				t.Errorf("read ahead %d: %d records, in turn %d", ahead, len(got), len(inTurn))
				continue
			}
			for i := range got {
				if got[i] != inTurn[i] {
					t.Errorf("read ahead %d: record %d is %+v, in turn %+v", ahead, i, got[i], inTurn[i])
					break
				}
			}
		}
	}
}
