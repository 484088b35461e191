package audit

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"koff/edit/plan"
)

// An edit of one cluster that stopped part way is noticed (koff status,
// the dashboard header) only on that cluster: koff connected to another
// cluster, with a connector of the same name, says nothing of it, and a
// verified edit there settles nothing here.
func TestInterruptedEditsBelongToTheirCluster(t *testing.T) {
	log := &Log{Path: filepath.Join(t.TempDir(), "audit.jsonl")}
	at := time.Date(2026, 12, 3, 2, 0, 0, 0, time.UTC)
	ch := Change{Partition: json.RawMessage(`{"file":"x"}`), Before: json.RawMessage(`{"pos":1}`), After: json.RawMessage(`{"pos":9}`), Writes: []string{"connect-offsets/4"}}
	line := func(id, cluster, result string, written []string) {
		en := Entry{ID: id, Time: at, User: "tester", Connector: "src", Kind: plan.KindSet, Path: plan.PathTopic, Cluster: cluster, Result: result, Written: written}
		if result == ResultInProgress {
			en.Changes = []Change{ch}
			en.Positions = map[string]int64{"connect-offsets/4": 7}
		}
		if err := log.Append(en); err != nil {
			t.Fatal(err)
		}
	}
	line("a1", "cluster-a", ResultInProgress, nil)
	line("a1", "cluster-a", ResultPartial, []string{"connect-offsets/4"})
	line("b1", "cluster-b", ResultInProgress, nil)
	line("b1", "cluster-b", ResultVerified, []string{"connect-offsets/4"})

	for _, c := range []struct {
		cluster string
		want    int
	}{{"cluster-a", 1}, {"cluster-b", 0}, {"cluster-c", 0}, {"", 1}} {
		eds, err := log.Interrupted(c.cluster)
		if err != nil {
			t.Fatal(err)
		}
		if len(eds) != c.want {
			t.Errorf("connected to %q: %d interrupted edits noticed, want %d", c.cluster, len(eds), c.want)
		}
		if n := len(log.InterruptedCached(c.cluster)); n != c.want {
			t.Errorf("connected to %q (cached): %d interrupted edits noticed, want %d", c.cluster, n, c.want)
		}
	}
}
