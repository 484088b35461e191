package interop

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestDebeziumRekeyTopicPrefix: koff rekey of a stopped Debezium
// PostgreSQL connector's server field with its topic.prefix in the same
// operation (PUT …/config as a step): Connect's GET shows the offset under
// the new key, as it was; once resumed there is no new snapshot, and the
// rows inserted while it was stopped arrive on the new prefix's topic,
// each once, none lost, none on the old prefix's.
func TestDebeziumRekeyTopicPrefix(t *testing.T) {
	s := realStack(t)
	pg := realPostgres(t)
	const name, table, prefix = "dbz-rekey", "dbz_rekey", "dbz-rekey2"
	oldTopic, newTopic := name+".public."+table, prefix+".public."+table
	s.streamingDebezium(t, pg, name, table, 3) // rows 1-3 snapshotted, 4 streamed
	before := s.dbzOffset(t, name)
	s.stop(t, name)
	pg.insertRows(t, table, 5, 7)
	oldEnd := s.endOffset(t, oldTopic, 0)

	out := mustKoff(t, s.withREST("rekey", name, "--set", "server="+prefix, "--config", "topic.prefix="+prefix, "--yes")...)
	t.Logf("koff rekey:\n%s", out)
	for _, want := range []string{"change the config of " + name, "topic.prefix " + name + " → " + prefix, `{"server":"` + prefix + `"}`, "all 2 steps done"} {
		if !strings.Contains(out, want) {
			t.Errorf("koff rekey's output lacks %q", want)
		}
	}
	got := s.connectOffsets(t, name)
	if len(got.Offsets) != 1 || fmt.Sprint(got.Offsets[0].Partition) != fmt.Sprint(map[string]any{"server": prefix}) {
		t.Fatalf("Connect's GET after the rekey: %v", canonical(t, got))
	}
	if fmt.Sprint(got.Offsets[0].Offset) != fmt.Sprint(before) {
		t.Errorf("offset under the new key %v, was %v", got.Offsets[0].Offset, before)
	}
	s.waitState(t, name, "STOPPED") // a stopped connector's new config leaves it stopped

	s.resume(t, name)
	pg.insertRows(t, table, 8, 8)
	evs := s.dbzEvents(t, newTopic, 0, func(evs []dbzEvent) bool {
		return len(evs) > 0 && evs[len(evs)-1].After != nil && evs[len(evs)-1].After.ID == 8
	})
	var ids []int64
	for _, ev := range evs {
		if ev.After != nil {
			ids = append(ids, ev.After.ID)
		}
	}
	if n := countOps(evs); n["r"] != 0 || !slices.Equal(ids, []int64{5, 6, 7, 8}) {
		t.Errorf("%s after the rekey: %v, rows %v; want no snapshot and rows 5-8 once each", newTopic, n, ids)
	}
	if end := s.endOffset(t, oldTopic, 0); end != oldEnd {
		t.Errorf("%s grew from %d to %d after the rekey", oldTopic, oldEnd, end)
	}
}
