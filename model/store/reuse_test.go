package store

import (
	"testing"
	"time"

	"koff/model"
)

// TestIngestCopiesKeys: the tailer reuses one buffer for the keys of each
// fetched chunk. Overwriting it after Ingest changes nothing the Store
// shows: rows, detail, key bytes, unparseable previews.
func TestIngestCopiesKeys(t *testing.T) {
	s := NewStore(StoreOptions{})
	s.SetTopicPartitions("connect-offsets", 25)
	buf := []byte(`["jdbc",{"table":"orders"}]["jdbc",{"table":"items"}]not-a-key`)
	k1, k2, bad := buf[:27:27], buf[27:53:53], buf[53:]
	s.Ingest([]Record{
		{Topic: "connect-offsets", Partition: 3, Offset: 0, Key: k1, Value: []byte(`{"id":1}`), Time: t0},
		{Topic: "connect-offsets", Partition: 3, Offset: 1, Key: k2, Value: []byte(`{"id":2}`), Time: t0},
		{Topic: "connect-offsets", Partition: 3, Offset: 2, Key: bad, Value: []byte(`{"id":3}`), Time: t0},
	})
	for i := range buf {
		buf[i] = 'x'
	}
	rows := s.Partitions(model.ConnectorID{Topic: "connect-offsets", Name: "jdbc"})
	if len(rows) != 2 || rows[0].Partition != `{"table":"items"}` || rows[1].Partition != `{"table":"orders"}` {
		t.Fatalf("rows after the key buffer was reused: %+v", rows)
	}
	d, ok := s.Partition(rows[1].ID)
	if !ok || string(d.Key) != `["jdbc",{"table":"orders"}]` || d.Offset != `{"id":1}` {
		t.Fatalf("detail after the key buffer was reused: %q %s", d.Key, d.Offset)
	}
	if u := s.UnparseableRecords(); len(u) != 1 || u[0].Key != "not-a-key" {
		t.Fatalf("unparseable after the key buffer was reused: %+v", u)
	}
	// A later record of a known key, in a reused buffer, still matches it.
	copy(buf, `["jdbc",{"table":"orders"}]`)
	s.Ingest([]Record{{Topic: "connect-offsets", Partition: 3, Offset: 3, Key: buf[:27], Value: []byte(`{"id":9}`), Time: t0.Add(time.Second)}})
	if d, _ := s.Partition(rows[1].ID); d.Offset != `{"id":9}` || d.Updates != 2 {
		t.Fatalf("update through a reused buffer: %s after %d updates", d.Offset, d.Updates)
	}
}
