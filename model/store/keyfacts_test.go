package store

import (
	"fmt"
	"hash/maphash"
	"strings"
	"testing"
	"time"

	"koff/model"
)

// keyFactsCases are keys in the plain form and just outside it.
var keyFactsCases = []string{
	`["jdbc",{"protocol":"1","table":"orders"}]`,
	`["jdbc",{"table":"orders","protocol":"1"}]`,
	`["mm2.MirrorSourceConnector",{"cluster":"primary","partition":7,"topic":"orders"}]`,
	`["mm2.MirrorSourceConnector",{"topic":"orders","partition":7,"cluster":"primary"}]`,
	`["debezium",{"server":"inventory","database":"db_0001"}]`,
	`["c",{"n":-9223372036854775808,"m":9223372036854775807,"z":0,"t":true,"f":false,"x":null}]`,
	`["c",{"n":9223372036854775808}]`, // beyond a long: Java reads a BigInteger
	`["c",{"n":-0}]`, `["c",{"n":007}]`, `["c",{"n":1.5}]`, `["c",{"n":1e3}]`,
	`["c",null]`, `["c",{}]`, `["c",{"a":1,"a":2}]`, `["c",{"a":{"b":1}}]`, `["c",{"a":[1]}]`,
	`["c",{"a":"x\"y"}]`, `["c",{"a":"é"}]`, `["c",{"a":"\u00e9"}]`, `["c",{"a":"` + "\x7f" + `"}]`,
	`["c\\d",{"a":1}]`, `[ "c",{"a":1}]`, `["c", {"a":1}]`, `["c",{"a":1}] `, `["c",{"a":1}]x`,
	`["c",{"a":1}`, `["c",{"a" :1}]`, `["c",{"a":tru}]`, `["c",{"a":truex}]`, `["c",{"a":1,}]`,
	`["c",{"a":1},3]`, `["c"]`, `[1,{"a":1}]`, `["c",1]`, `["",{"a":1}]`, `["c",{"":1}]`,
	"\xef\xbb\xbf" + `["c",{"a":1}]`, "",
	// 16 fields (the plain form's most) and 17, and names HashMap reorders.
	manyFields(16), manyFields(17),
	`["c",{"Aa":1,"BB":2}]`, `["c",{"BB":1,"Aa":2}]`, // equal String.hashCode
	`["c",{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13}]`,
}

func manyFields(n int) string {
	var b strings.Builder
	b.WriteString(`["c",{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"f%02d":%d`, n-i, i)
	}
	b.WriteString(`}]`)
	return b.String()
}

// checkKeyFacts fails when the plain-form reading of key says anything
// the full parse does not.
func checkKeyFacts(t *testing.T, key string) {
	t.Helper()
	var shapes keyShapes
	var keep arena
	want, werr := parsedKeyFacts(key, &shapes)
	got, ok := plainKeyFacts(key, &shapes, &keep)
	if ok && werr != nil {
		t.Fatalf("%q: read as plain, but ParseKey refuses it: %v", key, werr)
	}
	if !ok {
		return
	}
	if got.shape != want.shape {
		t.Errorf("%q: shape %d, want %d", key, got.shape, want.shape)
	}
	got.shape, want.shape = 0, 0
	if got != want {
		t.Errorf("%q: plain reading\n%+v\nparsed\n%+v", key, got, want)
	}
	af, aerr := analyzeKey(key, &shapes, &keep)
	af.shape = 0
	if aerr != nil || af != want {
		t.Errorf("%q: analyzeKey = %+v, %v", key, af, aerr)
	}
}

func TestPlainKeyFactsEqualParsedOnes(t *testing.T) {
	plain := 0
	for _, k := range keyFactsCases {
		checkKeyFacts(t, k)
		var shapes keyShapes
		if _, ok := plainKeyFacts(k, &shapes, &arena{}); ok {
			plain++
		}
	}
	for _, k := range keySeeds {
		checkKeyFacts(t, k)
	}
	if plain < 10 {
		t.Errorf("only %d keys took the plain reading", plain)
	}
}

func TestAnalyzeKeyRefusesWhatParseKeyRefuses(t *testing.T) {
	for _, k := range append(append([]string{}, keyFactsCases...), keySeeds...) {
		_, perr := model.ParseKey([]byte(k))
		_, aerr := analyzeKey(k, &keyShapes{}, &arena{})
		if (perr == nil) != (aerr == nil) || perr != nil && perr.Error() != aerr.Error() {
			t.Errorf("%q: analyzeKey error %v, ParseKey %v", k, aerr, perr)
		}
	}
}

// The Store matches keys by a hash of their bytes, and partitions by a
// hash of their identity: with every hash equal, which chains every key
// together, it must answer exactly as before.
func TestStoreWithCollidingHashes(t *testing.T) {
	hashBytes = func(maphash.Seed, []byte) uint64 { return 42 }
	hashString = func(maphash.Seed, string) uint64 { return 42 }
	defer func() { hashBytes, hashString = maphash.Bytes, maphash.String }()
	t.Run("suspect keys", TestStoreFlagsSuspectKeys)
	t.Run("history", TestStoreKeepsLatestValueHistoryAndTombstones)
	t.Run("already seen", TestStoreIgnoresRecordsAlreadySeen)
	t.Run("reference model", TestTaskReadsMatchesTheReferenceModel)
	t.Run("task reads", TestTaskReads_OffsetStorageReaderImplLooksUpTheTasksKeyBytes)
	t.Run("leniency", TestTaskReads_JsonDeserializerLeniency)
	t.Run("numbers", TestTaskReads_JsonConverterNumbers)
}

// The history ring keeps the newest updates in order once it wraps, and
// the gap between updates is taken over them in that order.
func TestStoreHistoryRingWraps(t *testing.T) {
	s := NewStore(StoreOptions{History: 4})
	k := `["c",{"a":1}]`
	var recs []Record
	gaps := []time.Duration{0, time.Second, 3 * time.Second, 4 * time.Second, 6 * time.Second, 16 * time.Second, 17 * time.Second}
	for i, at := range gaps {
		recs = append(recs, rec(0, int64(i), k, fmt.Sprintf(`{"n":%d}`, i), at))
		s.Ingest(recs[len(recs)-1:])
	}
	d, _ := s.Partition(model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: 0}, Key: k})
	if len(d.History) != 4 {
		t.Fatalf("history holds %d updates, want 4", len(d.History))
	}
	for i, u := range d.History {
		if want := fmt.Sprintf(`{"n":%d}`, i+3); string(u.Value) != want || u.RecordOffset != int64(i+3) || !u.Time.Equal(t0.Add(gaps[i+3])) {
			t.Errorf("history[%d] = %s at %d, want %s", i, u.Value, u.RecordOffset, want)
		}
	}
	if d.Offset != `{"n":6}` || d.RecordOffset != 6 || d.Updates != 7 {
		t.Errorf("latest %s at %d after %d updates", d.Offset, d.RecordOffset, d.Updates)
	}
	// Gaps of the 4 kept: 2s, 10s, 1s: median 2s.
	if g, n := model.MedianGap(d.History); g != 2*time.Second || n != 3 {
		t.Errorf("median gap of the ordered history %s over %d", g, n)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	e := s.find(d.ID)
	if gap, gaps := e.gapOfUpdates(); gap != 2*time.Second || gaps != 3 {
		t.Errorf("the Store's gap %s over %d, want 2s over 3", gap, gaps)
	}
}

// A copy of a key in a second and a third partition shares the first
// copy's analysis, and every copy counts the homes of its bytes.
func TestStoreCountsHomesOfKeyBytes(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	k := `["c",{"a":1}]`
	s.Ingest([]Record{rec(3, 0, k, `{"n":1}`, 0), rec(7, 0, k, `{"n":2}`, time.Second)})
	s.Ingest([]Record{rec(1, 0, k, `{"n":3}`, 2*time.Second)})
	for _, p := range []int{3, 7, 1} {
		d, ok := s.Partition(model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: p}, Key: k})
		if !ok || d.Flags&model.FlagDuplicate == 0 || fmt.Sprint(d.Homes) != "[1 3 7]" || d.Partition != `{"a":1}` {
			t.Errorf("copy in %d: found %v, flags %s, homes %v, partition %s", p, ok, d.Flags, d.Homes, d.Partition)
		}
	}
}
