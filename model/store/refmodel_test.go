package store

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"koff/model"
	"koff/model/java"
)

// A small reference model of what a restarted Java task reads, written
// from Apache Kafka 4.1.1's code rather than from koff's:
//
//   - KafkaOffsetBackingStore.consumedCallback: data is a map from raw key
//     bytes to raw value bytes; records are applied in read order; a null
//     value removes the key. A restarted worker reads the topic from the
//     start, and KafkaBasedLog.poll hands one poll's records over in
//     ConsumerRecords order: a java.util.HashMap keyed by TopicPartition,
//     so partitions come in bucket order (refReadRank), each in offset order.
//   - OffsetStorageReaderImpl.offsets: the task serialises its own map
//     (JsonConverter.fromConnectData) and looks up those exact bytes; the
//     value found is read with JsonConverter.toConnectData and
//     OffsetUtils.validateFormat, and anything but a map is no offset.
//
// The model does not parse JSON: each generated key and value carries, by
// construction, the bytes a task writes and what JsonDeserializer
// (leading zeros allowed, text after the first value ignored) and
// convertToConnect make of it.

type refKey struct {
	raw  string
	task bool // the bytes the task's own map serialises to
}

type refValue struct {
	raw  *string // nil: tombstone
	java string  // what the task reads, as JSON; "" for no offset
}

func sp(s string) *string { return &s }

// Key variants of two single-field partitions (no field order to guess).
var refPartitions = []struct {
	part string
	keys []refKey
}{
	{`{"f":"x"}`, []refKey{
		{`["c",{"f":"x"}]`, true},
		{`["c", {"f": "x"}]`, false},                // whitespace
		{`["c",{"f":"\u0078"}]`, false},             // another escape of x
		{`["c",{"f":"x"}] `, false},                 // text after the array
		{"\xef\xbb\xbf" + `["c",{"f":"x"}]`, false}, // a byte-order mark
	}},
	{`{"n":7}`, []refKey{
		{`["c",{"n":7}]`, true},
		{`["c",{"n":007}]`, false}, // leading zeros: Long 7, other bytes
		{`["c",{"n":7 }]`, false},
	}},
}

func refValues(n int) []refValue {
	return []refValue{
		{sp(fmt.Sprintf(`{"pos":%d}`, n)), fmt.Sprintf(`{"pos":%d}`, n)},
		{sp(fmt.Sprintf(`{ "pos" : %d }`, n)), fmt.Sprintf(`{"pos":%d}`, n)},
		{sp(fmt.Sprintf(`{"pos":00%d}`, n)), fmt.Sprintf(`{"pos":%d}`, n)},
		{sp(fmt.Sprintf(`{"pos":%d} trailing`, n)), fmt.Sprintf(`{"pos":%d}`, n)},
		{sp(fmt.Sprintf(`{"pos":1,"pos":%d}`, n)), fmt.Sprintf(`{"pos":%d}`, n)},
		{sp(fmt.Sprintf(`{"pos":%d.5,"s":"a\u0062"}`, n)), fmt.Sprintf(`{"pos":%d.5,"s":"ab"}`, n)},
		{nil, ""},                   // tombstone
		{sp(""), ""},                // zero bytes: MissingNode, null
		{sp("null"), ""},            // NullNode, null
		{sp("garbage"), ""},         // DataException, skipped
		{sp("[1]"), ""},             // not a Map
		{sp(`{"pos":{"a":1}}`), ""}, // validateFormat: nested
	}
}

type refRecord struct {
	tp    int
	key   refKey
	value refValue
	part  int
	at    time.Duration
}

// refReadRank is partition p's bucket in a java.util.HashMap of the given
// table size: TopicPartition.hashCode is 31 * (31 + partition) +
// String.hashCode(topic), spread by h ^ (h >>> 16).
func refReadRank(topic string, p int, buckets uint32) int {
	var th int32
	for _, c := range topic {
		th = 31*th + int32(c)
	}
	u := uint32(31*(31+int32(p)) + th)
	return int((u ^ u>>16) & (buckets - 1))
}

// refTaskReads applies the records in read order and looks up the task's
// bytes of each partition. The poll's map (Fetch.records, a new HashMap)
// holds the partitions with records: 16 buckets for up to 12, 32 for up to
// 24, 64 for 25. Partitions in one bucket come in the fetch request's
// order: AbstractFetch.fetchablePartitions' new HashSet of all 25
// (25/.75+1 = 34, so 64 buckets), then partition number.
func refTaskReads(recs []refRecord) map[int]string {
	with := map[int]bool{}
	for _, r := range recs {
		with[r.tp] = true
	}
	buckets := uint32(16)
	if len(with) > 12 {
		buckets = 32
	}
	if len(with) > 24 {
		buckets = 64
	}
	sorted := append([]refRecord(nil), recs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.tp != b.tp {
			for _, n := range []uint32{buckets, 64} {
				if ra, rb := refReadRank("connect-offsets", a.tp, n), refReadRank("connect-offsets", b.tp, n); ra != rb {
					return ra < rb
				}
			}
			return a.tp < b.tp
		}
		return a.at < b.at
	})
	data := map[string]refValue{}
	for _, r := range sorted {
		if r.value.raw == nil {
			delete(data, r.key.raw)
			continue
		}
		data[r.key.raw] = r.value
	}
	out := map[int]string{}
	for i, p := range refPartitions {
		for _, k := range p.keys {
			if k.task {
				out[i] = data[k.raw].java
			}
		}
	}
	return out
}

func randomRecords(r *rand.Rand) []refRecord {
	var recs []refRecord
	n := 1 + r.IntN(12)
	for i := 0; i < n; i++ {
		pi := r.IntN(len(refPartitions))
		k := refPartitions[pi].keys[r.IntN(len(refPartitions[pi].keys))]
		vs := refValues(100 + i)
		v := vs[r.IntN(len(vs))]
		tp := java.PartitionFor([]byte(k.raw), 25)
		if r.IntN(4) == 0 {
			tp = r.IntN(25) // by hand, into some partition
		}
		recs = append(recs, refRecord{tp: tp, key: k, value: v, part: pi, at: time.Duration(i) * time.Millisecond})
	}
	return recs
}

func storeOf(recs []refRecord) *Store {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	next := map[int]int64{}
	for _, r := range recs {
		rec := Record{Topic: "connect-offsets", Partition: r.tp, Offset: next[r.tp], Key: []byte(r.key.raw), Time: t0.Add(r.at)}
		next[r.tp]++
		if r.value.raw != nil {
			rec.Value = []byte(*r.value.raw)
		}
		s.Ingest([]Record{rec})
	}
	return s
}

// koffTaskReads is what koff says the task reads of each partition.
func koffTaskReads(t *testing.T, s *Store) map[int]string {
	t.Helper()
	out := map[int]string{}
	for i, p := range refPartitions {
		k, _ := model.ParseKey([]byte(`["c",` + p.part + `]`))
		id := java.JavaIdentity(k.Partition)
		for _, row := range s.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "c"}) {
			rk, err := model.ParseKey([]byte(row.ID.Key))
			if err == nil && java.JavaIdentity(rk.Partition) == id {
				out[i] = row.TaskReads
			}
		}
	}
	return out
}

func sameReads(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	va, err1 := java.ParseJSON([]byte(a))
	vb, err2 := java.ParseJSON([]byte(b))
	return err1 == nil && err2 == nil && java.SameValue(va, vb)
}

// Property: for random sequences of writes to two partitions (key variants,
// tombstones, nulls, garbage, lenient numbers, copies in other partitions),
// what koff says the task reads equals the reference model.
func TestTaskReadsMatchesTheReferenceModel(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 4111))
	for i := 0; i < 3000; i++ {
		recs := randomRecords(r)
		want := refTaskReads(recs)
		got := koffTaskReads(t, storeOf(recs))
		for p := range refPartitions {
			if !sameReads(got[p], want[p]) {
				var trace string
				for _, rc := range recs {
					v := "<tombstone>"
					if rc.value.raw != nil {
						v = *rc.value.raw
					}
					trace += fmt.Sprintf("\n  %v p%d %q = %q", rc.at, rc.tp, rc.key.raw, v)
				}
				t.Fatalf("sequence %d, partition %s: koff says the task reads %q, the reference %q%s", i, refPartitions[p].part, got[p], want[p], trace)
			}
		}
	}
}

// The export body (OffsetsBody) holds exactly what the task reads: each
// partition with an offset once, none of those without.
func TestExportHoldsWhatTheTaskReads(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for i := 0; i < 1000; i++ {
		recs := randomRecords(r)
		want := refTaskReads(recs)
		s := storeOf(recs)
		body := model.OffsetsBody(s.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "c"}))
		v, err := java.ParseJSON(body)
		if err != nil {
			t.Fatalf("invalid export body %s", body)
		}
		offs, _ := v.(java.Object).Get("offsets")
		got := map[int]string{}
		for _, e := range offs.([]any) {
			o := e.(java.Object)
			part, _ := o.Get("partition")
			off, _ := o.Get("offset")
			for pi, p := range refPartitions {
				if java.SameValue(part, mustParse(p.part)) {
					if _, dup := got[pi]; dup {
						t.Fatalf("partition %s twice in %s", p.part, body)
					}
					got[pi] = string(java.AppendJackson(nil, off))
				}
			}
		}
		for p := range refPartitions {
			if !sameReads(got[p], want[p]) {
				t.Fatalf("sequence %d: export has %q for %s, the task reads %q: %s", i, got[p], refPartitions[p].part, want[p], body)
			}
		}
	}
}

func mustParse(s string) any {
	v, err := java.ParseJSON([]byte(s))
	if err != nil {
		panic(err)
	}
	return v
}
