package history

import (
	"fmt"
	"testing"
	"time"

	"koff/model/java"
)

// What the share keeps is bounded: at most shareMaxEntries partitions, the
// one asked for longest ago let go first, and none nobody asked for in
// shareIdle.
func TestHistoryShareLetsGoOfPartitionsNobodyViews(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := &Share{Now: func() time.Time { return now }}
	part := func(i int) java.Object { return java.Object{{Name: "table", Value: fmt.Sprint("t", i)}} }
	first := s.entry("jdbc", part(0), 500)
	for i := 1; i < shareMaxEntries+10; i++ {
		now = now.Add(time.Second)
		s.entry("jdbc", part(i), 500)
	}
	if len(s.entries) != shareMaxEntries {
		t.Fatalf("%d partitions kept, want at most %d", len(s.entries), shareMaxEntries)
	}
	if s.entry("jdbc", part(0), 500) == first {
		t.Error("the partition asked for longest ago was kept")
	}
	if a, b := s.entry("jdbc", part(shareMaxEntries+9), 500), s.entry("jdbc", part(shareMaxEntries+9), 500); a != b {
		t.Error("one partition asked for twice is two histories")
	}
	now = now.Add(shareIdle + time.Second)
	s.entry("jdbc", part(1), 500)
	if len(s.entries) != 1 {
		t.Errorf("%d partitions kept %s after anyone asked for them, want only the one asked for now", len(s.entries), shareIdle)
	}
}
