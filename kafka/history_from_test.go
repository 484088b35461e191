package kafka

import (
	"context"
	"fmt"
	"testing"
)

// A read from where a read before ended hands on only the records
// written since, in each partition; a partition the read before did not
// know is read from its log start.
func TestReadHistoryFromReadsOnlyWhatTheTopicGained(t *testing.T) {
	_, addr := startBroker(t, 0)
	createTopic(t, addr, "connect-offsets", 3)
	for p := range 3 {
		for i := range 50 {
			produce(t, addr, "connect-offsets", p, kv{key: key("c", i%5), value: fmt.Sprintf(`{"n":%d}`, i)})
		}
	}
	ctx := context.Background()
	cfg := Config{Brokers: []string{addr}}
	all := 0
	logs, err := cfg.ReadHistory(ctx, "connect-offsets", nil, func(*HistoryRecord) error { all++; return nil })
	if err != nil || all != 150 {
		t.Fatalf("the first read: %d records, %v", all, err)
	}
	from := make([]int64, len(logs))
	for _, l := range logs {
		from[l.Partition] = l.End
	}
	produce(t, addr, "connect-offsets", 1, kv{key: key("c", 1), value: `{"n":100}`}, kv{key: key("c", 2), tombstone: true})
	var got []string
	after, err := cfg.ReadHistoryFrom(ctx, "connect-offsets", from, nil, func(r *HistoryRecord) error {
		got = append(got, fmt.Sprintf("%d@%d %s", r.Partition, r.Offset, r.Value))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`1@50 {"n":100}`, "1@51 "}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the follow read %q, want %q (the new record and the tombstone)", got, want)
	}
	for _, l := range after {
		want := int64(50)
		if l.Partition == 1 {
			want = 52
		}
		if l.End != want || l.LogStart != 0 || l.FirstGap != l.End {
			t.Errorf("%s: %+v, want the end %d, no gap", l.TopicPartition, l, want)
		}
	}
	n := 0
	if _, err := cfg.ReadHistoryFrom(ctx, "connect-offsets", from[:1], nil, func(*HistoryRecord) error { n++; return nil }); err != nil || n != 102 {
		t.Errorf("partitions the read before did not know are read from the start: %d records, want 102 (%v)", n, err)
	}
}
