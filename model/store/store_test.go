package store

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"koff/model"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func rec(tp int, off int64, key, value string, at time.Duration) Record {
	r := Record{Topic: "connect-offsets", Partition: tp, Offset: off, Key: []byte(key), Time: t0.Add(at)}
	if value != "" {
		r.Value = []byte(value)
	}
	return r
}

func TestStoreKeepsLatestValueHistoryAndTombstones(t *testing.T) {
	s := NewStore(StoreOptions{History: 3})
	k := `["jdbc",{"protocol":"1","table":"orders"}]`
	s.Ingest([]Record{
		rec(4, 0, k, `{"incrementing":1}`, 0),
		rec(4, 1, k, `{"incrementing":2}`, time.Minute),
		rec(4, 2, k, `{"incrementing":3}`, 2*time.Minute),
		rec(4, 3, k, `{"incrementing":18446744073709551615}`, 3*time.Minute),
	})
	id := model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: 4}, Key: k}
	d, ok := s.Partition(id)
	if !ok {
		t.Fatal("partition not found")
	}
	if d.Offset != `{"incrementing":18446744073709551615}` || !d.Updated.Equal(t0.Add(3*time.Minute)) || d.RecordOffset != 3 {
		t.Errorf("latest = %s at %v (record %d)", d.Offset, d.Updated, d.RecordOffset)
	}
	if len(d.History) != 3 || string(d.History[0].Value) != `{"incrementing":2}` {
		t.Errorf("history should keep the 3 newest updates, got %d starting %s", len(d.History), d.History[0].Value)
	}
	if d.Partition != `{"protocol":"1","table":"orders"}` {
		t.Errorf("partition = %s", d.Partition)
	}

	s.Ingest([]Record{rec(4, 4, k, "", 4*time.Minute)})
	rows := s.Connectors()
	if len(rows) != 1 || rows[0].Partitions != 0 || rows[0].Deleted != 1 {
		t.Fatalf("after tombstone: %+v", rows)
	}
	d, _ = s.Partition(id)
	if !d.Deleted || d.Offset != "" || d.History[len(d.History)-1].Value != nil {
		t.Errorf("tombstone not recorded: %+v", d.PartitionRow)
	}
	s.Ingest([]Record{rec(4, 5, k, `{"incrementing":1}`, 5*time.Minute)})
	if r := s.Connectors()[0]; r.Partitions != 1 || r.Deleted != 0 {
		t.Errorf("after re-adding: live %d deleted %d", r.Partitions, r.Deleted)
	}
}

func TestStoreIgnoresRecordsAlreadySeen(t *testing.T) {
	s := NewStore(StoreOptions{})
	k := `["c",{"f":"a"}]`
	s.Ingest([]Record{rec(0, 10, k, `{"p":2}`, 0)})
	s.Ingest([]Record{rec(0, 9, k, `{"p":1}`, 0), rec(0, 10, k, `{"p":1}`, 0)}) // a re-read after reconnecting
	d, _ := s.Partition(model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: 0}, Key: k})
	if d.Offset != `{"p":2}` || d.Updates != 1 {
		t.Errorf("re-read records changed the partition: %s (%d updates)", d.Offset, d.Updates)
	}
}

func TestStoreCountsUnparseableAndKeepsGoing(t *testing.T) {
	s := NewStore(StoreOptions{Unparseable: 2})
	s.Ingest([]Record{
		rec(0, 0, "garbage\x00\xff", `{"a":1}`, 0),
		rec(0, 1, `["c",{"f":"a"}]`, `not json`, 0),
		rec(0, 2, `["c"]`, `{"a":1}`, 0),
		rec(0, 3, `["c",{"f":"a"}]`, `{"a":1}`, 0),
	})
	st := s.Stats()
	if st.Unparseable != 3 || st.Records != 4 || st.Partitions != 1 {
		t.Errorf("stats = %+v", st)
	}
	u := s.UnparseableRecords()
	if len(u) != 2 || u[0].Reason != "value: not JSON the converter reads: unrecognized token \"not\"" || u[1].Offset != 2 {
		t.Errorf("ring should keep the 2 newest unparseable records, got %+v", u)
	}
}

func TestStoreFlagsSuspectKeys(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	good := `["inventory-connector",{"server":"dbserver1"}]`     // murmur2 → 11
	spaced := `["inventory-connector", {"server": "dbserver1"}]` // murmur2 → 17
	multi := `["c",{"table":"t1","database":"db","schema":"public","a":1}]`
	s.Ingest([]Record{
		rec(11, 0, good, `{"lsn":1}`, 0),
		rec(7, 0, good, `{"lsn":0}`, 0), // same bytes in a partition a restarted worker reads before 11
		rec(5, 0, spaced, `{"lsn":1}`, 0),
		rec(22, 0, multi, `{"o":1}`, 0),
	})
	flags := map[int]model.Flags{}
	for _, c := range s.Connectors() {
		for _, r := range s.Partitions(c.ID) {
			flags[r.ID.Partition] = r.Flags
		}
	}
	if flags[11] != model.FlagDuplicate {
		t.Errorf("p11 flags %v, want duplicate only", flags[11])
	}
	if flags[7] != model.FlagDuplicate|model.FlagMisplaced|model.FlagStray {
		t.Errorf("p7 flags %v, want duplicate,misplaced,stray", flags[7])
	}
	if flags[5] != model.FlagMisplaced|model.FlagNotCanonical|model.FlagStray {
		t.Errorf("p5 flags %v, want misplaced,non-canonical,stray", flags[5])
	}
	if flags[22] != model.FlagNotCanonical {
		t.Errorf("p22 flags %v, want non-canonical (not HashMap order)", flags[22])
	}
	d, _ := s.Partition(model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: 7}, Key: good})
	if d.Expected != 11 || fmt.Sprint(d.Homes) != "[7 11]" {
		t.Errorf("expected partition %d homes %v", d.Expected, d.Homes)
	}
	var suspect int
	for _, c := range s.Connectors() {
		suspect += c.Suspect
	}
	// Three copies of one partition, and one partition alone in its key
	// (not HashMap order, but the only key, so the task's).
	if suspect != 1 {
		t.Errorf("suspect partitions = %d, want 1", suspect)
	}
}

func TestStoreGroupsFlushEvents(t *testing.T) {
	s := NewStore(StoreOptions{FlushWindow: time.Second})
	var batch []Record
	// Three flushes 5s apart, each writing 3 partitions within 30ms, fed
	// partition by partition as a catch-up reads them: a later flush arrives
	// before an earlier one of another partition.
	for p := 0; p < 3; p++ {
		for f := 0; f < 3; f++ {
			at := time.Duration(f)*5*time.Second + time.Duration(p)*10*time.Millisecond
			batch = append(batch, rec(p, int64(f), fmt.Sprintf(`["c",{"t":"%d"}]`, p), `{"o":1}`, at))
		}
	}
	s.Ingest(batch)
	c := s.Connectors()[0]
	if len(c.Flushes) != 3 {
		t.Fatalf("flushes = %+v, want 3", c.Flushes)
	}
	for i, f := range c.Flushes {
		if f.Records != 3 || !f.Start.Equal(t0.Add(time.Duration(i)*5*time.Second)) {
			t.Errorf("flush %d = %+v", i, f)
		}
	}
	if !c.LastUpdate.Equal(t0.Add(10*time.Second + 20*time.Millisecond)) {
		t.Errorf("last update %v", c.LastUpdate)
	}
	now := t0.Add(12 * time.Second)
	if n := model.FlushesSince(c.Flushes, now.Add(-6*time.Second)); n != 1 {
		t.Errorf("flushes in the last 6s = %d, want 1", n)
	}
	if b := model.FlushBuckets(c.Flushes, now, 12*time.Second, 4); fmt.Sprint(b) != "[3 3 0 3]" {
		t.Errorf("buckets = %v", b)
	}
}

func TestStoreFlushRingIsBounded(t *testing.T) {
	s := NewStore(StoreOptions{Flushes: 4})
	for i := 0; i < 10; i++ {
		s.Ingest([]Record{rec(0, int64(i), `["c",{"t":"x"}]`, `{"o":1}`, time.Duration(i)*time.Minute)})
	}
	f := s.Connectors()[0].Flushes
	if len(f) != 4 || !f[0].Start.Equal(t0.Add(6*time.Minute)) {
		t.Errorf("ring should hold the 4 newest flushes, got %+v", f)
	}
}

// One writer, many readers: run with -race.
func TestStoreConcurrentReadersAndWriter(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last uint64
			for {
				select {
				case <-stop:
					return
				default:
				}
				v := s.Version()
				if v < last {
					t.Error("version went backwards")
					return
				}
				last = v
				for _, c := range s.Connectors() {
					for _, p := range s.Partitions(c.ID) {
						s.Partition(p.ID)
					}
				}
				s.Stats()
				s.UnparseableRecords()
			}
		}()
	}
	for i := 0; i < 200; i++ {
		var batch []Record
		for p := 0; p < 25; p++ {
			batch = append(batch, rec(p, int64(i), fmt.Sprintf(`["c%d",{"t":"%d"}]`, p%5, p), fmt.Sprintf(`{"o":%d}`, i), time.Duration(i)*time.Second))
		}
		batch = append(batch, rec(0, int64(1000+i), "junk", "x", 0))
		s.Ingest(batch)
	}
	close(stop)
	wg.Wait()
	if st := s.Stats(); st.Partitions != 25 || st.Connectors != 5 || st.Records != 200*26 {
		t.Errorf("stats after concurrent ingest: %+v", st)
	}
}

func TestStoreJoinsRESTStates(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.Ingest([]Record{rec(0, 0, `["src",{"f":"a"}]`, `{"o":1}`, 0)})
	s.SetREST(model.RESTStatus{Connectors: map[string]model.ConnectorState{
		"src":  {Name: "src", Type: "source", State: "STOPPED"},
		"sink": {Name: "sink", Type: "sink", State: "RUNNING", Tasks: []model.TaskState{{ID: 0, State: "RUNNING"}, {ID: 1, State: "FAILED"}}},
	}})
	rows := map[string]model.ConnectorRow{}
	for _, r := range s.Connectors() {
		rows[r.ID.Name] = r
	}
	if r := rows["src"]; !r.InREST || r.REST.State != "STOPPED" || r.Partitions != 1 {
		t.Errorf("src = %+v", r)
	}
	if r := rows["sink"]; !r.InREST || r.ID.Topic != "" || r.REST.TaskSummary() != "1 running, 1 failed" {
		t.Errorf("sink = %+v (%s)", r, r.REST.TaskSummary())
	}
	// A failed poll keeps the last known states and says why.
	s.SetREST(model.RESTStatus{Err: "cannot reach Kafka Connect"})
	if r := s.REST(); r.Err == "" || r.Connectors["src"].State != "STOPPED" {
		t.Errorf("after a failed poll: %+v", r)
	}
}
