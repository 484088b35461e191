package store

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"koff/model"
)

// Keys of a few connectors: task forms and their variants (whitespace,
// escapes, leading zeros), the two field orders of one partition, big
// numbers, a null partition, and keys the worker cannot read.
var latestKeys = []*string{
	sp(`["c",{"f":"x"}]`), sp(`["c", {"f": "x"}]`), sp(`["c",{"f":"\u0078"}]`),
	sp(`["c",{"n":7}]`), sp(`["c",{"n":007}]`),
	sp(`["c",{"a":"1","b":2}]`), sp(`["c",{"b":2,"a":"1"}]`), sp(`["c",{"a":"2","b":2}]`), sp(`["c",{"b":2,"a":"2"}]`),
	sp(`["c",{"big":123456789012345678901234567890}]`), sp(`["c",{"d":1.50}]`),
	sp(`["c",null]`), sp(`["d",{"f":"x"}]`), sp(`["d",{"b":1,"a":1}]`), sp(`["d",{"a":1,"b":1}]`),
	sp(`garbage`), sp(``), nil, sp(`["c"]`), sp(`["c",{"f":{"nested":1}}]`),
}

var latestValues = []*string{
	sp(`{"pos":1}`), sp(`{"pos":2}`), sp(`{ "pos" : 3 }`), sp(`{"pos":004}`), sp(`{"pos":1,"pos":5}`),
	sp(`{"lsn":98765432109876543210}`), sp(`{"x":1e400}`), sp(`{"x":-0.0}`),
	nil, nil, sp(``), sp(`null`), sp(`garbage`), sp(`[1]`), sp(`{"pos":{"a":1}}`), sp(`{"pos":`),
}

type testChunk struct{ recs []Record }

// latestSequence is a random read of a 3-partition offsets topic, as
// chunks of one topic-partition each, in the order a Tailer hands them over.
func latestSequence(r *rand.Rand) []testChunk {
	var keys []*string
	for range 2 + r.IntN(6) {
		keys = append(keys, latestKeys[r.IntN(len(latestKeys))])
	}
	next := map[int]int64{}
	at := time.Duration(0)
	var chunks []testChunk
	for range 1 + r.IntN(8) {
		tp := r.IntN(3)
		var c testChunk
		size := 1 + r.IntN(40)
		if r.IntN(4) == 0 {
			size = 100 + r.IntN(400) // several polls' worth (max.poll.records): FreshRead
		}
		for range size {
			// Times close together (one flush) and far apart; now and then
			// backwards (CreateTime is the producer's).
			switch r.IntN(6) {
			case 0, 2, 3:
				at += time.Duration(200+r.IntN(3000)) * time.Millisecond
			case 1:
				at -= time.Duration(r.IntN(300)) * time.Millisecond
			default:
				at += time.Duration(r.IntN(40)) * time.Millisecond
			}
			rec := Record{Topic: "connect-offsets", Partition: tp, Offset: next[tp], Time: t0.Add(at)}
			next[tp] += 1 + int64(r.IntN(2)) // compacted: gaps
			if k := keys[r.IntN(len(keys))]; k != nil {
				rec.Key = []byte(*k)
			}
			if v := latestValues[r.IntN(len(latestValues))]; v != nil {
				rec.Value = []byte(*v)
			}
			c.recs = append(c.recs, rec)
		}
		chunks = append(chunks, c)
	}
	return chunks
}

func cloneRecords(recs []Record) []Record {
	out := make([]Record, len(recs))
	for i, r := range recs {
		r.Key, r.Value = cloneBytes(r.Key), cloneBytes(r.Value)
		out[i] = r
	}
	return out
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// A Store fed only the latest record of each key bytes of each chunk
// (Latest.Keep, as koff get's Tailer does) holds what one fed every record
// holds: the same rows (which copy a task reads, flags, notes, updated
// times, record offsets, update counts), the same export bodies, the same
// history times and offsets, totals and read positions. Only the values
// of superseded records, which no one-shot read shows, are not kept.
func TestLatestOnlyStoreSameAsFull(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	for i := range 3000 {
		chunks := latestSequence(r)
		hist := []int{16, 3, 2, 1}[i%4]
		full := NewStore(StoreOptions{History: hist})
		latest := NewStore(StoreOptions{History: hist})
		oneShot := NewStore(StoreOptions{History: hist, OneShot: true})
		for _, s := range []*Store{full, latest, oneShot} {
			if i%5 != 0 { // sometimes without a partition count
				s.SetTopicPartitions("connect-offsets", 3)
			}
		}
		keep := NewLatest(hist)
		kept := 0
		for _, c := range chunks {
			full.Ingest(cloneRecords(c.recs))
			k := keep.Keep(cloneRecords(c.recs))
			kept += len(k)
			latest.Ingest(k)
			oneShot.Ingest(keep.Keep(cloneRecords(c.recs)))
		}
		fail := func(what string, a, b any) {
			t.Helper()
			var trace string
			for _, c := range chunks {
				trace += "\n  chunk:"
				for _, rc := range c.recs {
					v := "<tombstone>"
					if rc.Value != nil {
						v = string(rc.Value)
					}
					trace += "\n    p" + strconv.Itoa(rc.Partition) + "@" + strconv.FormatInt(rc.Offset, 10) + " " + rc.Time.Sub(t0).String() + " " + string(rc.Key) + " = " + v
				}
			}
			t.Fatalf("sequence %d (history %d): %s differ\nfull:   %+v\nlatest: %+v%s", i, hist, what, a, b, trace)
		}
		conns := full.Connectors()
		var ids []model.ConnectorID
		for _, c := range conns {
			ids = append(ids, c.ID)
		}
		for _, s := range []*Store{latest, oneShot} {
			got := s.Connectors()
			if s == oneShot {
				// No flush events or gaps worked out: the rest is equal.
				for j := range got {
					got[j].Flushes, got[j].PartitionInterval = conns[j].Flushes, conns[j].PartitionInterval
				}
			} else {
				// Flush events are grouped from the records the Store sees.
				for j := range got {
					got[j].Flushes = conns[j].Flushes
				}
			}
			if !reflect.DeepEqual(conns, got) {
				fail("connectors", conns, got)
			}
			for _, id := range ids {
				a, b := full.Partitions(id), s.Partitions(id)
				if !reflect.DeepEqual(a, b) {
					fail("rows of "+id.Name, a, b)
				}
				if a, b := string(full.OffsetsBody([]model.ConnectorID{id})), string(s.OffsetsBody([]model.ConnectorID{id})); a != b {
					fail("bodies of "+id.Name, a, b)
				}
				for _, row := range a {
					da, _ := full.Partition(row.ID)
					db, ok := s.Partition(row.ID)
					if !ok || len(da.History) != len(db.History) {
						fail("history of "+row.ID.Key, da.History, db.History)
					}
					for j := range da.History {
						ha, hb := da.History[j], db.History[j]
						if j < len(da.History)-1 {
							ha.Value, hb.Value = nil, nil
						}
						if !reflect.DeepEqual(ha, hb) {
							fail("history of "+row.ID.Key, da.History, db.History)
						}
					}
					da.History, db.History = nil, nil
					if !reflect.DeepEqual(da, db) {
						fail("detail of "+row.ID.Key, da, db)
					}
				}
			}
			if a, b := string(full.OffsetsBody(ids)), string(s.OffsetsBody(ids)); a != b {
				fail("bodies of all", a, b)
			}
			sa, sb := full.Stats(), s.Stats()
			sa.Unparseable, sb.Unparseable = 0, 0
			if !reflect.DeepEqual(sa, sb) {
				fail("stats", sa, sb)
			}
			for tp := range 3 {
				if a, b := full.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: tp}), s.ReadTo(model.TopicPartition{Topic: "connect-offsets", Partition: tp}); a != b {
					fail("read positions", a, b)
				}
			}
		}
	}
}

// Keep keeps the latest record of each key bytes in the place of the
// first, and nothing else.
func TestLatestKeepsLastOfEachKey(t *testing.T) {
	mk := func(off int64, k, v string) Record {
		return Record{Topic: "t", Partition: 0, Offset: off, Key: []byte(k), Value: []byte(v), Time: t0.Add(time.Duration(off) * time.Second)}
	}
	recs := []Record{mk(0, "a", "1"), mk(1, "b", "1"), mk(2, "a", "2"), mk(3, "c", `{"p":1}`), mk(4, "a", "3"), mk(5, "b", "2")}
	recs = append(recs, Record{Topic: "t", Offset: 6}, Record{Topic: "t", Offset: 7, Key: []byte{}}) // a null key and an empty one
	got := NewLatest(3).Keep(recs)
	var offs []int64
	for _, r := range got {
		offs = append(offs, r.Offset)
	}
	if want := []int64{4, 5, 3, 6, 7}; !reflect.DeepEqual(offs, want) {
		t.Fatalf("kept offsets %v, want %v", offs, want)
	}
	sup := func(r Record) (int, []model.Update, time.Time) {
		n, older := r.prep.chunk.superseded(int(r.prep.pos))
		return n, older, r.prep.chunk.newest[r.prep.pos]
	}
	if n, older, newest := sup(got[0]); n != 2 || len(older) != 2 || older[0].RecordOffset != 0 || older[1].RecordOffset != 2 || !newest.Equal(t0.Add(2*time.Second)) {
		t.Errorf("a's superseded records: %d %+v %s", n, older, newest)
	}
	if n, older, _ := sup(got[1]); n != 1 || len(older) != 1 || older[0].RecordOffset != 1 {
		t.Errorf("b's superseded records: %d %+v", n, older)
	}
	if n, older, _ := sup(got[2]); n != 0 || len(older) != 0 || !got[2].prep.done || !got[2].prep.plain {
		t.Errorf("c: %d %+v %+v", n, older, got[2].prep)
	}
}

// The flush evidence (flushedWith) reads every update in the history
// ring: a key first written in one flush with another partition and later
// alone is the task's order, and Keep hands its superseded record's time
// on for it.
func TestLatestKeepsFlushEvidence(t *testing.T) {
	x, y := `["c",{"b":2,"a":"1"}]`, `["c",{"a":"1","b":2}]` // y in HashMap order
	at := func(tp int, off int64, k string, sec int) Record {
		return Record{Topic: "connect-offsets", Partition: tp, Offset: off, Key: []byte(k), Value: []byte(`{"pos":` + strconv.Itoa(sec) + `}`), Time: t0.Add(time.Duration(sec) * time.Second)}
	}
	chunks := [][]Record{
		{at(1, 0, `["c",{"f":"x"}]`, 0)},
		{at(0, 0, x, 0), at(0, 1, x, 5), at(0, 2, y, 10)},
	}
	full, latest := NewStore(StoreOptions{}), NewStore(StoreOptions{OneShot: true})
	keep := NewLatest(16)
	for _, c := range chunks {
		full.Ingest(cloneRecords(c))
		latest.Ingest(keep.Keep(cloneRecords(c)))
	}
	id := model.ConnectorID{Topic: "connect-offsets", Name: "c"}
	a, b := full.Partitions(id), latest.Partitions(id)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("rows differ\nfull:   %+v\nlatest: %+v", a, b)
	}
	for _, row := range a {
		if row.ID.Key == x && (!row.Live || !strings.Contains(row.TaskNote, "one flush")) {
			t.Errorf("the key written in one flush is not the one read: %+v", row)
		}
	}
	if body := string(latest.OffsetsBody([]model.ConnectorID{id})); !strings.Contains(body, `{"partition":{"b":2,"a":"1"},"offset":{"pos":5}}`) {
		t.Errorf("body %s", body)
	}
}

// ConnectorList is Connectors without the counts over partitions: the same
// connectors in the same order, with their types, sink groups, REST state
// and own offsets topics, sources, REST-only ones and connect-* groups.
func TestConnectorListIsConnectorsWithoutCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for i := range 300 {
		s := NewStore(StoreOptions{OneShot: i%2 == 0})
		for _, c := range latestSequence(r) {
			s.Ingest(c.recs)
		}
		if i%3 > 0 {
			s.SetREST(model.RESTStatus{URL: "http://connect", Connectors: map[string]model.ConnectorState{
				"c":        {Name: "c", Type: "source", State: "RUNNING", Config: map[string]string{"offsets.storage.topic": "own"}},
				"new-one":  {Name: "new-one", Type: "source", State: "RUNNING"},
				"sink-one": {Name: "sink-one", Type: "sink", State: "RUNNING", Config: map[string]string{"consumer.override.group.id": "g"}},
			}})
		}
		if i%4 > 1 {
			s.SetGroups(t0, []model.GroupPoll{{Group: "connect-sink-one"}, {Group: "connect-lonely"}, {Group: "g"}})
		}
		want, got := s.Connectors(), s.ConnectorList()
		for j := range want {
			want[j].Partitions, want[j].Deleted, want[j].NoOffset, want[j].Suspect, want[j].PartitionInterval = 0, 0, 0, 0, 0
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("store %d:\nConnectors:    %+v\nConnectorList: %+v", i, want, got)
		}
	}
}

// The copy of some key bytes a fresh read keeps follows the polls its
// records come in (FreshRead), which count every record read of each
// partition: a chunk Latest kept one record of still counts whole, and
// the kept record keeps its place in it. In 25 partitions of many
// records each, a poll holds a few partitions, whose HashMap order is not
// the fetch response's: which poll a copy's record falls in decides.
func TestLatestKeepsPollPlaces(t *testing.T) {
	const x = `["c",{"f":"x"}]`
	chunk := func(p, m int, xAt int) []Record {
		var c []Record
		for i := range m {
			k := `["c",{"f":"filler-` + strconv.Itoa(p) + `"}]`
			if i == xAt {
				k = x
			}
			c = append(c, Record{Topic: "connect-offsets", Partition: p, Offset: int64(i), Key: []byte(k), Value: []byte(`{"n":` + strconv.Itoa(p*1000+i) + `}`), Time: t0})
		}
		return c
	}
	id := model.ConnectorID{Topic: "connect-offsets", Name: "c"}
	placesMatter := 0
	for a := range 25 {
		for _, d := range []int{1, 3, 7, 12} {
			b := (a + d) % 25
			for _, m := range []int{90, 160, 260} {
				full, latest, misplaced := NewStore(StoreOptions{}), NewStore(StoreOptions{OneShot: true}), NewStore(StoreOptions{OneShot: true})
				keep := NewLatest(16)
				for _, s := range []*Store{full, latest, misplaced} {
					s.SetTopicPartitions("connect-offsets", 25)
				}
				for p := range 25 {
					xAt := -1
					switch p {
					case a:
						xAt = m - 1 // the last record of a
					case b:
						xAt = 0 // the first of b
					}
					c := chunk(p, m, xAt)
					full.Ingest(cloneRecords(c))
					latest.Ingest(keep.Keep(cloneRecords(c)))
					wrong := keep.Keep(cloneRecords(c))
					for i := range wrong {
						wrong[i].prep.pos = 0 // every kept record at its chunk's start
					}
					misplaced.Ingest(wrong)
				}
				want := full.Partitions(id)
				if got := latest.Partitions(id); !reflect.DeepEqual(want, got) {
					t.Fatalf("a=%d b=%d m=%d: rows differ\nfull:   %+v\nlatest: %+v", a, b, m, want, got)
				}
				if string(full.OffsetsBody([]model.ConnectorID{id})) != string(misplaced.OffsetsBody([]model.ConnectorID{id})) {
					placesMatter++
				}
			}
		}
	}
	// The test can tell a wrong place from a right one.
	if placesMatter == 0 {
		t.Error("the kept records' places in their chunks never changed the copy read")
	}
}

// A partition of more than max.partition.fetch.bytes makes the polls a
// guess (FreshRead.Exact), which the note says: the bytes of the records
// a Latest did not keep count too.
func TestLatestCountsSupersededBytes(t *testing.T) {
	const x = `["c",{"f":"x"}]`
	pad := strings.Repeat("p", 4000)
	var big []Record
	for i := range 300 { // 1.2 MB, nearly all superseded
		big = append(big, Record{Topic: "connect-offsets", Partition: 0, Offset: int64(i), Key: []byte(`["c",{"f":"y"}]`), Value: []byte(`{"pad":"` + pad + `"}`), Time: t0})
	}
	big = append(big, Record{Topic: "connect-offsets", Partition: 0, Offset: 300, Key: []byte(x), Value: []byte(`{"in":0}`), Time: t0})
	other := []Record{{Topic: "connect-offsets", Partition: 1, Key: []byte(x), Value: []byte(`{"in":1}`), Time: t0}}
	full, latest, fewer := NewStore(StoreOptions{}), NewStore(StoreOptions{OneShot: true}), NewStore(StoreOptions{OneShot: true})
	for _, s := range []*Store{full, latest, fewer} {
		s.SetTopicPartitions("connect-offsets", 25)
	}
	keep := NewLatest(16)
	for _, c := range [][]Record{big, other} {
		full.Ingest(cloneRecords(c))
		latest.Ingest(keep.Keep(cloneRecords(c)))
		wrong := keep.Keep(cloneRecords(c))
		for i := range wrong[0].prep.chunk.bytes {
			wrong[0].prep.chunk.bytes[i] /= 4 // as if only some bytes counted
		}
		fewer.Ingest(wrong)
	}
	id := model.ConnectorID{Topic: "connect-offsets", Name: "c"}
	want := full.Partitions(id)
	if got := latest.Partitions(id); !reflect.DeepEqual(want, got) {
		t.Fatalf("rows differ\nfull:   %+v\nlatest: %+v", want, got)
	}
	if got := fewer.Partitions(id); reflect.DeepEqual(want, got) {
		t.Errorf("the bytes counted did not change the note: %+v", got)
	}
}
