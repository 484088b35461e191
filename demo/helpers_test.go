package demo

import (
	"context"
	"errors"
	"io"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
)

// testOptions are short intervals so a test sees many flushes in seconds.
func testOptions(t *testing.T) Options {
	return Options{
		FlushInterval: 200 * time.Millisecond,
		StallAfter:    time.Second,
		Logf:          testLogf(t),
	}
}

// testLogf logs to t until the test's cleanups have run: a late line from a
// broker goroutine must not hit a finished test.
func testLogf(t *testing.T) func(string, ...any) {
	var done atomic.Bool
	t.Cleanup(func() { done.Store(true) })
	return func(format string, args ...any) {
		if !done.Load() {
			t.Logf(format, args...)
		}
	}
}

func startCluster(t *testing.T, opts Options) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// rec is one record read back with kafka-go, the client koff itself uses.
type rec struct {
	partition int
	offset    int64
	time      time.Time
	key       []byte
	value     []byte // nil: tombstone
	headers   int
}

// kafkaClient returns a kafka-go client whose connections the test closes.
func kafkaClient(t *testing.T, bootstrap string) *kafka.Client {
	tr := &kafka.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &kafka.Client{Addr: kafka.TCP(bootstrap), Transport: tr, Timeout: 10 * time.Second}
}

// readTopic reads every partition of a topic from the start to its high
// watermark, in partition then offset order.
func readTopic(t *testing.T, cl *kafka.Client, topic string, partitions int) []rec {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Empty partitions are skipped: a fetch from one waits out MaxWait.
	req := &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{}}
	for p := range partitions {
		req.Topics[topic] = append(req.Topics[topic], kafka.LastOffsetOf(p))
	}
	lo, err := cl.ListOffsets(ctx, req)
	if err != nil {
		t.Fatalf("list offsets %s: %v", topic, err)
	}
	empty := map[int]bool{}
	for _, po := range lo.Topics[topic] {
		empty[po.Partition] = po.Error == nil && po.LastOffset == 0
	}
	var out []rec
	for p := range partitions {
		if empty[p] {
			continue
		}
		var next int64
		for {
			resp, err := cl.Fetch(ctx, &kafka.FetchRequest{
				Topic: topic, Partition: p, Offset: next,
				MinBytes: 1, MaxBytes: 8 << 20, MaxWait: 50 * time.Millisecond,
			})
			if err != nil {
				t.Fatalf("fetch %s[%d]@%d: %v", topic, p, next, err)
			}
			if resp.Error != nil {
				t.Fatalf("fetch %s[%d]@%d: %v", topic, p, next, resp.Error)
			}
			hwm := resp.HighWatermark
			for {
				r, err := resp.Records.ReadRecord()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("read %s[%d]: %v", topic, p, err)
				}
				k, _ := kafka.ReadAll(r.Key)
				v, _ := kafka.ReadAll(r.Value)
				if r.Offset >= next {
					out = append(out, rec{partition: p, offset: r.Offset, time: r.Time, key: k, value: v, headers: len(r.Headers)})
					next = r.Offset + 1
				}
			}
			if next >= hwm {
				break
			}
		}
	}
	return out
}

// endOffsets sums the high watermarks of a topic's partitions.
func endOffsets(t *testing.T, cl *kafka.Client, topic string, partitions int) int64 {
	t.Helper()
	req := &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{}}
	for p := range partitions {
		req.Topics[topic] = append(req.Topics[topic], kafka.LastOffsetOf(p))
	}
	resp, err := cl.ListOffsets(context.Background(), req)
	if err != nil {
		t.Fatalf("list offsets %s: %v", topic, err)
	}
	var sum int64
	for _, po := range resp.Topics[topic] {
		if po.Error != nil {
			t.Fatalf("list offsets %s[%d]: %v", topic, po.Partition, po.Error)
		}
		sum += po.LastOffset
	}
	return sum
}

// byKey groups records by key bytes, each group in offset order.
func byKey(recs []rec) map[string][]rec {
	m := map[string][]rec{}
	for _, r := range recs {
		m[string(r.key)] = append(m[string(r.key)], r)
	}
	for _, rs := range m {
		sort.Slice(rs, func(i, j int) bool { return rs[i].offset < rs[j].offset })
	}
	return m
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
