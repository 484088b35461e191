package store

import (
	"math/rand/v2"
	"testing"

	"koff/model"
)

// TestExpectedSizesIngestAsWithout: a Store told the records to come
// (ExpectRecords: right, too many, too few, or for some partitions only),
// which sizes its index of keys from them, and making its blocks off the
// lock (makeSpares), holds what a Store told nothing and making every
// block under the lock holds: every row, body, detail with its history,
// count, read position and unparseable record.
func TestExpectedSizesIngestAsWithout(t *testing.T) {
	defer func(n int) { expectMin = n }(expectMin)
	expectMin = 4 // the sequences' few hundred keys
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 200 {
		batches := aheadSequence(r)
		hist := []int{16, 2, 1}[i%3]
		stores, keeps := storePair(hist, i%4 == 3)
		stores[0].spare = spareBlocks{} // every block made under the lock
		var records [3]int64
		for _, b := range batches {
			for _, rec := range b {
				records[rec.Partition]++
			}
		}
		for p := range 3 - i%2 { // some runs tell two partitions of three
			n := records[p]
			switch i % 3 {
			case 1:
				n *= 10
			case 2:
				n /= 3
			}
			stores[1].ExpectRecords(model.TopicPartition{Topic: "connect-offsets", Partition: p}, n)
		}
		for _, b := range batches {
			for j, s := range stores {
				recs := cloneRecords(b)
				if i%2 == 0 && samePartition(recs) {
					recs = keeps[j].Keep(recs)
				}
				s.Ingest(recs)
			}
		}
		if why := storesDiffer(stores[0], stores[1]); why != "" {
			t.Fatalf("sequence %d (history %d): %s", i, hist, why)
		}
	}
}

// TestExpectedSizeGrowsTheIndexOnce: told a million records, of which the
// first thousand bring a thousand keys, the index of keys is sized for a
// million at once; told nothing, it doubles as it fills.
func TestExpectedSizeGrowsTheIndexOnce(t *testing.T) {
	for _, told := range []bool{false, true} {
		s := NewStore(StoreOptions{OneShot: true})
		s.SetTopicPartitions("connect-offsets", 1)
		if told {
			s.ExpectRecords(model.TopicPartition{Topic: "connect-offsets", Partition: 0}, 1_000_000)
		}
		var batch []Record
		for i := range 2000 {
			batch = append(batch, Record{Topic: "connect-offsets", Offset: int64(i), Key: []byte(`["c",{"p":` + model.Itoa(i) + `}]`), Value: []byte(`{"o":1}`)})
		}
		s.Ingest(batch)
		got := len(s.byKey["connect-offsets"].slots)
		if want := 4096; !told && got != want {
			t.Errorf("told nothing: %d slots for 2,000 keys, want %d", got, want)
		}
		if want := 1 << 21; told && got != want {
			t.Errorf("told a million records: %d slots after 2,000 keys, want %d", got, want)
		}
		if rows := s.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "c"}); len(rows) != 2000 {
			t.Errorf("told %v: %d rows, want 2,000", told, len(rows))
		}
	}
}
