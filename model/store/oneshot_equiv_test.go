package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

// osTopic is a random offsets topic's records, by partition, in offset
// order.
type osTopic struct {
	name  string
	parts [][]Record
}

// osOdd are the records a OneShotRead leaves to the Store, each its own
// trial's one oddity, and when it is met: while reading (the part hands
// what it kept over at its next chunk) or once read (Bodies).
var osOdd = []struct {
	name    string
	reading bool
}{
	{"a copy in another partition", false},
	{"a copy under another field order", false},
	{"a value not plain", true},
	{"a value not JSON", true},
	{"a key not plain", true},
	{"a key not JSON", true},
	{"a null key", true},
	{"a key not ASCII", true},
	{"a second offsets topic", false},
	{"a partition number past 2^63", true},
	{"an offset past 2^63", true},
	{"a nested offset", true},
	{"a nested partition", true},
	{"a connector name past 250 bytes", true},
	{"a key of 64 KB", true},
	{"an offset 2^32 past the partition's first", true},
}

// randomTopics makes the records of one trial: connectors' keys in the
// plain form (fields in sorted and other orders, null partitions, numbers
// past 2^53, nested maps), each written one to 40 times to its murmur2
// partition with values of every plain kind (past 2^53 and 2^63,
// tombstones), and when odd >= 0 that oddity (osOdd) at a random place.
func randomTopics(rng *rand.Rand, odd int) []osTopic {
	parts := 1 + rng.IntN(6)
	topics := []osTopic{{name: "connect-offsets", parts: make([][]Record, parts)}}
	base := time.UnixMilli(1_796_000_000_000)
	conns := []string{"mm2", "jdbc-src", "dbz", "c"}[:1+rng.IntN(4)]
	var keys []string
	for i := range 5 + rng.IntN(300) {
		c := conns[rng.IntN(len(conns))]
		var part string
		switch rng.IntN(8) {
		case 0:
			part = "null"
		case 1:
			part = fmt.Sprintf(`{"table":"t%d","schema":"s"}`, i) // not sorted
		case 2:
			part = fmt.Sprintf(`{"file":"/log/%d ~"}`, i)
		case 3:
			part = fmt.Sprintf(`{"n":%d,"lsn":-9223372036854775808,"big":9007199254740993}`, i)
		case 4:
			part = fmt.Sprintf(`{"on":true,"off":false,"none":null,"id":"d%d"}`, i)
		default:
			part = fmt.Sprintf(`{"cluster":"a","partition":%d,"topic":"t%d"}`, rng.IntN(50), i)
		}
		keys = append(keys, fmt.Sprintf(`[%q,%s]`, c, part))
	}
	values := func() []byte {
		switch rng.IntN(12) {
		case 0:
			return nil
		case 1:
			return []byte(`{"offset":9223372036854775807,"lsn":-1}`)
		case 2:
			return []byte(`{"offset":9007199254740993}`)
		case 3:
			return []byte(`{"file":"a","pos":"7"}`)
		case 4:
			return []byte(`{"offset":null}`)
		case 5:
			return []byte(`{}`)
		}
		return fmt.Appendf(nil, `{"offset":%d}`, rng.Int64())
	}
	offsets := make([]int64, parts)
	put := func(p int, k, v []byte) {
		topics[0].parts[p] = append(topics[0].parts[p], Record{Topic: "connect-offsets", Partition: p, Offset: offsets[p], Key: k, Value: v,
			Time: base.Add(time.Duration(offsets[p]) * time.Millisecond)})
		offsets[p] += 1 + int64(rng.IntN(3)) // compacted: gaps
	}
	n := len(keys) * (1 + rng.IntN(40))
	oddAt := rng.IntN(n)
	copies := odd >= 0 && osOdd[odd].name == "a copy in another partition"
	for i := range n {
		k := []byte(keys[rng.IntN(len(keys))])
		if copies && rng.IntN(50) == 0 {
			i = oddAt // copies of many keys, read in polls the ordinals work out
		}
		if i == oddAt && odd >= 0 {
			v := []byte(`{"offset":1}`)
			switch osOdd[odd].name {
			case "a copy in another partition":
				if parts == 1 {
					topics[0].parts = append(topics[0].parts, nil)
					offsets = append(offsets, 0)
					parts++
				}
				put((java.PartitionFor(k, parts)+1)%parts, k, v)
				continue
			case "a copy under another field order":
				k = []byte(`["jdbc-src",{"schema":"s","table":"t0"}]`)
				put(java.PartitionFor(k, parts), k, v)
				k = []byte(`["jdbc-src",{"table":"t0","schema":"s"}]`)
			case "a value not plain":
				v = []byte(`{"offset": 1}`)
			case "a value not JSON":
				v = []byte(`{"offset":`)
			case "a key not plain":
				k = []byte(strings.Replace(string(k), `",`, `", `, 1))
			case "a key not JSON":
				k = []byte(`not json`)
			case "a null key":
				k = nil
			case "a key not ASCII":
				k = []byte(`["café",{"file":"é"}]`)
			case "a second offsets topic":
				topics = append(topics, osTopic{name: "other-offsets", parts: [][]Record{{{Topic: "other-offsets", Key: k, Value: v, Time: base}}}})
				continue
			case "a partition number past 2^63":
				k = []byte(`["dbz",{"lsn":98765432109876543210}]`)
			case "an offset past 2^63":
				v = []byte(`{"offset":98765432109876543210}`)
			case "a nested offset":
				v = []byte(`{"position":{"file":"a","pos":7}}`)
			case "a key of 64 KB":
				k = []byte(`["c",{"a":"` + strings.Repeat("x", 1<<16) + `"}]`)
			case "a connector name past 250 bytes":
				k = []byte(`["` + strings.Repeat("c", 251) + `",{"a":1}]`)
			case "an offset 2^32 past the partition's first":
				for p := range offsets {
					offsets[p] += 1 << 32
				}
			case "a nested partition":
				k = []byte(`["dbz",{"db":{"name":"d"},"list":[1,2]}]`)
			}
			put(java.PartitionFor(k, parts), k, v)
			continue
		}
		put(java.PartitionFor(k, parts), k, values())
	}
	return topics
}

// storeJSON is koff get -o json's bytes of every connector of s.
func storeJSON(s *Store) []byte {
	ids := map[string][]model.ConnectorID{}
	var names []string
	for _, c := range s.ConnectorList() {
		if _, ok := ids[c.ID.Name]; !ok {
			names = append(names, c.ID.Name)
		}
		ids[c.ID.Name] = append(ids[c.ID.Name], c.ID)
	}
	slices.Sort(names)
	out := []byte{'{'}
	for i, n := range names {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(java.AppendJackson(out, n), ':')
		out = s.AppendOffsetsBody(out, ids[n])
	}
	return append(out, '}')
}

// storeHistories is every entry's count of updates and the times and
// record offsets of those it keeps, oldest first.
func storeHistories(s *Store) string {
	var lines []string
	for id, c := range s.connectors {
		for _, e := range c.entries {
			l := fmt.Sprintf("%s %s p%d updates=%d:", id.Name, e.key, e.partition, e.updates)
			for _, u := range e.orderedHistory() {
				l += fmt.Sprintf(" %d@%d", u.RecordOffset, u.Time.UnixMilli())
			}
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// chunks hands recs to take in chunks of random sizes, as fetches cut them.
func chunks(rng *rand.Rand, recs []Record, take func([]Record)) {
	for len(recs) > 0 {
		n := min(len(recs), 1+rng.IntN(300))
		if rng.IntN(4) == 0 {
			n = min(len(recs), 256+rng.IntN(2000)) // indexed: keys read again within it
		}
		take(slices.Clone(recs[:n]))
		recs = recs[n:]
	}
}

// A OneShotRead writes what the Store writes of the same records, and
// where it meets what it leaves to the Store, the Store it hands its
// records to (at the part's next chunk while reading, or all of them once
// read) holds what the Store holds having read every record: the same
// bodies, the same copies read last by a restarted worker among copies in
// several partitions (FreshRead: each record's place in its partition and
// the partition's count and bytes), on random topics of every kind of
// record, each oddity in turn.
func TestOneShotReadPrintsWhatTheStorePrints(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 17))
	printed, gaveUp := 0, map[string]int{}
	for trial := range 2 * 3 * len(osOdd) {
		odd := -1
		if trial%2 == 1 {
			odd = trial / 2 % len(osOdd)
		}
		topics := randomTopics(rng, odd)
		seed := rng.Uint64()
		// The Store, fed every record through a Latest, as the Tailer does.
		want := NewStore(StoreOptions{OneShot: true})
		feed := rand.New(rand.NewPCG(seed, 1))
		for _, tp := range topics {
			want.SetTopicPartitions(tp.name, len(tp.parts))
			for _, recs := range tp.parts {
				l := NewLatest(want.History())
				chunks(feed, recs, func(c []Record) { want.Ingest(l.Keep(c)) })
			}
		}
		// The one-shot read, its partitions' chunks interleaved.
		got := NewStore(StoreOptions{OneShot: true})
		o := &OneShotRead{}
		type reader struct {
			part   *OneShotPart
			latest *Latest
			chunks [][]Record
		}
		var readers []*reader
		feed = rand.New(rand.NewPCG(seed, 1))
		for _, tp := range topics {
			got.SetTopicPartitions(tp.name, len(tp.parts))
			for p, recs := range tp.parts {
				made := int64(len(recs) / (1 + trial%3)) // some parts grow past what they were made for
				r := &reader{part: o.Part(model.TopicPartition{Topic: tp.name, Partition: p}, made, got.History(), got.Ingest), latest: NewLatest(got.History())}
				chunks(feed, recs, func(c []Record) { r.chunks = append(r.chunks, c) })
				readers = append(readers, r)
			}
		}
		for len(readers) > 0 {
			i := rng.IntN(len(readers))
			r := readers[i]
			if len(r.chunks) == 0 {
				readers = slices.Delete(readers, i, i+1)
				continue
			}
			if rest, ok := r.part.Append(r.chunks[0]); !ok {
				got.Ingest(r.latest.Keep(rest))
			}
			r.chunks = r.chunks[1:]
		}
		var out []byte
		bodies, ok := o.Bodies()
		if ok {
			printed++
			bodies.WriteJSON(func(p []byte, _ bool) { out = append(out, p...) })
		} else {
			gaveUp[o.Why()]++
			o.HandOver()
			out = storeJSON(got)
		}
		if w := storeJSON(want); !bytes.Equal(out, w) {
			t.Errorf("trial %d (%d, one-shot printed %v, %s):\n got %.3000s\nwant %.3000s", trial, odd, ok, o.Why(), out, w)
		}
		// Handed over, the Store also holds each entry's history as the
		// Store fed every record does: its times decide which of a
		// partition's forms a task wrote in one flush (flushedWith).
		if g, w := storeHistories(got), storeHistories(want); !ok && g != w {
			t.Errorf("trial %d (%s): histories after the handover differ:\n got %.2000s\nwant %.2000s", trial, o.Why(), g, w)
		}
		if ok != (odd < 0) {
			t.Errorf("trial %d (odd %d): the read printed itself: %v (%s)", trial, odd, ok, o.Why())
		}
		if !ok && odd >= 0 && metReading(o.Why()) != osOdd[odd].reading {
			t.Errorf("trial %d (%s): given up for %q", trial, osOdd[odd].name, o.Why())
		}
		if !ok {
			for _, p := range o.parts {
				if !p.handed || p.recs != nil {
					t.Errorf("trial %d: a part not handed over", trial)
				}
			}
		}
	}
	t.Logf("printed %d, left to the Store: %v", printed, gaveUp)
}

// metReading says whether why is met while reading, not by Bodies.
func metReading(why string) bool {
	return why == "a value not in the plain form" || why == "a key not in the plain form" || strings.HasPrefix(why, "a null key") || strings.HasPrefix(why, "a connector name")
}
