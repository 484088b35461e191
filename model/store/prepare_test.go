package store

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"koff/model"
)

// Records prepared before Ingest (as the Tailer does) build the same Store
// as records Ingest works out itself.
func TestPreparedRecordsIngestAlike(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 1))
	id := model.ConnectorID{Topic: "connect-offsets", Name: "c"}
	for i := 0; i < 500; i++ {
		recs := randomRecords(r)
		plain := storeOf(recs)
		prepared := NewStore(StoreOptions{})
		prepared.SetTopicPartitions("connect-offsets", 25)
		next := map[int]int64{}
		for _, rc := range recs {
			rec := Record{Topic: "connect-offsets", Partition: rc.tp, Offset: next[rc.tp], Key: []byte(rc.key.raw), Time: t0.Add(rc.at)}
			next[rc.tp]++
			if rc.value.raw != nil {
				rec.Value = []byte(*rc.value.raw)
			}
			rec.Prepare()
			prepared.Ingest([]Record{rec})
		}
		if a, b := plain.Partitions(id), prepared.Partitions(id); !reflect.DeepEqual(a, b) {
			t.Fatalf("sequence %d: rows differ\n%+v\n%+v", i, a, b)
		}
		if a, b := plain.Connectors(), prepared.Connectors(); !reflect.DeepEqual(a, b) {
			t.Fatalf("sequence %d: connectors differ\n%+v\n%+v", i, a, b)
		}
	}
}

// A batch the caller reuses with other values is read afresh: Ingest does
// not keep what it worked out in the caller's records.
func TestIngestReadsReusedRecordsAfresh(t *testing.T) {
	s := NewStore(StoreOptions{})
	k := `["c",{"a":1}]`
	batch := []Record{rec(0, 0, k, `{"n":1}`, 0)}
	s.Ingest(batch)
	batch[0].Offset, batch[0].Value = 1, []byte(`{"n":`) // unreadable now
	s.Ingest(batch)
	d, _ := s.Partition(model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: 0}, Key: k})
	if d.Unreadable == "" || s.Stats().Unparseable != 1 {
		t.Errorf("the reused record's new value was not read afresh: %+v", d.PartitionRow)
	}
}

// wallSub and shiftInstant are Sub and Add without their costs.
func TestTimeArithmeticShortcuts(t *testing.T) {
	base := []time.Time{t0, time.Unix(0, 0), time.Unix(-1, 999_999_999), time.UnixMilli(-62_135_596_800_000), time.Date(2262, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(1500, 1, 1, 0, 0, 0, 5, time.UTC)}
	ds := []time.Duration{0, 1, -1, 999_999_999, -999_999_999, time.Second, -time.Second, 100 * time.Millisecond, -1500 * time.Millisecond, 90 * 24 * time.Hour, -3 * 365 * 24 * time.Hour}
	for _, a := range base {
		for _, d := range ds {
			b := a.Add(d)
			if got, want := model.WallSub(b, a), b.Sub(a); got != want {
				t.Errorf("wallSub(%s, %s) = %s, want %s", b, a, got, want)
			}
			s, n := model.ShiftInstant(a.Unix(), a.Nanosecond(), d)
			if s != b.Unix() || n != b.Nanosecond() {
				t.Errorf("shiftInstant(%s, %s) = %d.%09d, want %d.%09d", a, d, s, n, b.Unix(), b.Nanosecond())
			}
		}
	}
	far := []time.Time{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}
	if got, want := model.WallSub(far[1], far[0]), far[1].Sub(far[0]); got != want {
		t.Errorf("wallSub over millennia = %s, want %s", got, want)
	}
}
