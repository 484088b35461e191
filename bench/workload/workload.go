// Package workload generates Connect offsets topics as a Java worker writes
// them, at benchmark sizes: keys ["<connector>",{…}] and values as Jackson
// writes them (compact JSON, HashMap field order), each key in its murmur2
// partition, record batches of at most 16 KB (the producer's batch.size),
// each flush of a connector one burst of records with nearly the same
// timestamp.
package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"koff/model/java"
)

// Spec shapes the keys and values of one benchmark topic.
type Spec struct {
	// Kind is "debezium" (few keys, big LSN offsets) or "mm2" (MirrorMaker
	// partitions with {"offset":N}).
	Kind       string
	Keys       int // distinct source partitions
	Connectors int // connectors the keys are spread over
}

// Validate says what is wrong with a Spec.
func (w Spec) Validate() error {
	if w.Kind != "debezium" && w.Kind != "mm2" {
		return fmt.Errorf("unknown workload %q (debezium or mm2)", w.Kind)
	}
	if w.Keys <= 0 || w.Connectors <= 0 {
		return fmt.Errorf("need keys > 0 and connectors > 0")
	}
	return nil
}

func (w Spec) conns() int { return min(w.Connectors, w.Keys) }

// Key returns the key bytes of source partition i, as the worker's
// JsonConverter writes them (HashMap field order).
func (w Spec) Key(i int) []byte {
	c := i % w.conns()
	j := i / w.conns()
	switch w.Kind {
	case "mm2":
		// MirrorSourceTask: {"cluster","partition","topic"} per replicated topic-partition.
		return java.EncodeKey(fmt.Sprintf("mm2-%02d.MirrorSourceConnector", c), java.HashMapOrder(java.Object{
			{Name: "cluster", Value: "primary"},
			{Name: "topic", Value: fmt.Sprintf("orders.region-%d.topic-%d", c, j/100)},
			{Name: "partition", Value: json.Number(strconv.Itoa(j % 100))},
		}))
	default:
		// Debezium (SQL Server multi-database shape): {"server","database"}.
		return java.EncodeKey(fmt.Sprintf("debezium-%02d", c), java.HashMapOrder(java.Object{
			{Name: "server", Value: fmt.Sprintf("inventory-%02d", c)},
			{Name: "database", Value: fmt.Sprintf("db_%04d", j)},
		}))
	}
}

// Value returns the n-th offset written for source partition i.
func (w Spec) Value(i, n int, ts time.Time) []byte {
	switch w.Kind {
	case "mm2":
		return java.AppendJackson(nil, java.HashMapOrder(java.Object{{Name: "offset", Value: json.Number(strconv.Itoa(1000*n + i%1000))}}))
	default:
		lsn := strconv.FormatUint(1<<60+uint64(n)*1_000_003+uint64(i), 10) // above 2^53
		return java.AppendJackson(nil, java.HashMapOrder(java.Object{
			{Name: "transaction_id", Value: nil},
			{Name: "lsn_proc", Value: json.Number(lsn)},
			{Name: "messageType", Value: "UPDATE"},
			{Name: "lsn_commit", Value: json.Number(lsn)},
			{Name: "lsn", Value: json.Number(lsn)},
			{Name: "txId", Value: json.Number(strconv.Itoa(7_000_000 + n))},
			{Name: "ts_usec", Value: json.Number(strconv.FormatInt(ts.UnixMicro(), 10))},
		}))
	}
}

// CreateTopic creates a compacted offsets topic (and cfg's configs) as
// Connect's TopicAdmin does, retrying while a new broker settles.
func CreateTopic(addr, topic string, partitions int, cfg map[string]string) error {
	c := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 30 * time.Second}
	var entries []kafkago.ConfigEntry
	for k, v := range cfg {
		entries = append(entries, kafkago.ConfigEntry{ConfigName: k, ConfigValue: v})
	}
	var err error
	for i := 0; i < 50; i++ { // a broker just started may not have a controller yet
		var res *kafkago.CreateTopicsResponse
		res, err = c.CreateTopics(context.Background(), &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{
			Topic: topic, NumPartitions: partitions, ReplicationFactor: 1, ConfigEntries: entries,
		}}})
		if err == nil {
			err = res.Errors[topic]
		}
		if err == nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("create topic %s: %w", topic, err)
}

// Records calls fn for each record of the topic, in the order a worker
// writes them: rounds in which every connector flushes its
// partitions one after another, a flush interval of 60 s apart in record
// time, ending now. A round writes each key once, so the records are
// spread evenly over the keys, and the last round may stop early.
func (w Spec) Records(records, partitions int, now time.Time, fn func(partition int, key, value []byte, t time.Time)) {
	conns := w.conns()
	perConn := (w.Keys + conns - 1) / conns
	rounds := (records + w.Keys - 1) / w.Keys
	const interval = 60 * time.Second
	base := now.Add(-time.Duration(rounds) * interval)
	keyBytes := make([][]byte, w.Keys)
	keyPart := make([]int, w.Keys)
	for i := range keyBytes {
		keyBytes[i] = w.Key(i)
		keyPart[i] = java.PartitionFor(keyBytes[i], partitions)
	}
	written := 0
	for r := 0; r < rounds; r++ {
		for c := 0; c < conns; c++ {
			// One flush: the connector's partitions within a few ms.
			ts := base.Add(time.Duration(r)*interval + time.Duration(c)*interval/time.Duration(conns))
			for j := 0; j < perConn; j++ {
				i := j*conns + c
				if i >= w.Keys {
					break
				}
				if written == records {
					return
				}
				t := ts.Add(time.Duration(j/1000) * time.Millisecond)
				fn(keyPart[i], keyBytes[i], w.Value(i, r, t), t)
				written++
			}
		}
	}
}

// Load writes records records of w into topic at addr, each partition's
// records in order, the partitions concurrently.
func Load(addr, topic string, partitions, records int, w Spec) error {
	ch := make([]chan kafkago.Record, partitions)
	errs := make(chan error, partitions)
	var wg sync.WaitGroup
	client := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 60 * time.Second}
	for p := range ch {
		ch[p] = make(chan kafkago.Record, 4096)
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			errs <- produce(client, topic, p, ch[p])
		}(p)
	}
	w.Records(records, partitions, time.Now(), func(p int, key, value []byte, t time.Time) {
		ch[p] <- kafkago.Record{Key: kafkago.NewBytes(key), Value: kafkago.NewBytes(value), Time: t}
	})
	for _, c := range ch {
		close(c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// produce sends one partition's records in batches of at most 16 KB, as
// the Java producer's default batch.size makes them.
func produce(c *kafkago.Client, topic string, p int, in <-chan kafkago.Record) error {
	const batchBytes = 16 << 10
	var batch []kafkago.Record
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var err error
		for try := 0; try < 20; try++ {
			var res *kafkago.ProduceResponse
			res, err = c.Produce(context.Background(), &kafkago.ProduceRequest{
				Topic: topic, Partition: p, RequiredAcks: kafkago.RequireAll,
				Records: kafkago.NewRecordReader(batch...),
			})
			if err == nil {
				err = res.Error
			}
			if err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		batch, size = batch[:0], 0
		return err
	}
	var err error
	for r := range in {
		n := 70 + r.Key.Len() + r.Value.Len()
		if size+n > batchBytes && err == nil {
			err = flush()
		}
		batch = append(batch, r)
		size += n
	}
	if err == nil {
		err = flush()
	}
	if err != nil {
		return fmt.Errorf("produce %s/%d: %w", topic, p, err)
	}
	return nil
}

// Flush writes one offset of each source partition of connector c, as
// its worker's offset flush does: round n's values, stamped now. A
// benchmark that needs the partitions to move (a dashboard following
// them) flushes every second.
func Flush(addr, topic string, partitions, c, n int, w Spec) error {
	client := &kafkago.Client{Addr: kafkago.TCP(addr), Timeout: 30 * time.Second}
	byPart := map[int][]kafkago.Record{}
	now := time.Now()
	for i := c; i < w.Keys; i += w.conns() {
		k := w.Key(i)
		p := java.PartitionFor(k, partitions)
		byPart[p] = append(byPart[p], kafkago.Record{Key: kafkago.NewBytes(k), Value: kafkago.NewBytes(w.Value(i, n, now)), Time: now})
	}
	for p, recs := range byPart {
		ch := make(chan kafkago.Record, len(recs))
		for _, r := range recs {
			ch <- r
		}
		close(ch)
		if err := produce(client, topic, p, ch); err != nil {
			return err
		}
	}
	return nil
}
