package ui

import (
	"strings"
	"testing"
	"time"

	"koff/edit/plan"
	"koff/model"
	"koff/ui/dialogs"
)

// The fixture's file-source reads its application log's offset from the
// worker's key; here a hand-written copy with spaces is added (a stray:
// OffsetStorageReaderImpl looks up the compact bytes the task writes).
const (
	liveAppLog   = `{"position":143936}`
	spacedAppLog = `["file-source", {"filename":"/var/log/app/application-server-01.log"}]`
)

func openStray(t *testing.T, k string) (*fakeEditor, *Model) {
	t.Helper()
	f, ed, m := editModel(t, 140, 40, nil)
	f.putAt(t0.Add(-time.Minute), spacedAppLog, `{"position":2}`, 3)
	send(t, m, tickMsg{})
	selectPartition(t, m, "file-source", `{"position":2}`)
	send(t, m, press(k)...)
	if _, ok := m.form.(*dialogs.StrayForm); !ok {
		t.Fatalf("%s on a stray row opened no stray dialog:\n%s", k, screenText(m))
	}
	return ed, m
}

// e and x on a stray row say which copy is live and what the task reads,
// and offer the stray-only delete, which plans a tombstone of that key in
// that topic-partition only.
func TestStrayRowOffersDeleteThisCopyOnly(t *testing.T) {
	for _, k := range []string{"e", "x"} {
		t.Run(k, func(t *testing.T) {
			ed, m := openStray(t, k)
			requireContains(t, m, "A stray copy · file-source", "connect-offsets/3", `holds {"position":2}`,
				"the task does not read it", "What the task reads", liveAppLog, "from the live copy in connect-offsets/",
				"d delete this stray copy only")
			pressSettle(t, m, "d")
			requireCalls(t, ed, "plan delete-stray file-source")
			if m.confirm == nil {
				t.Fatalf("no confirmation of the stray delete:\n%s", screenText(m))
			}
			p := m.confirm.Plan
			if len(p.Changes) != 1 || len(p.Changes[0].Writes) != 1 {
				t.Fatalf("plan %+v", p.Changes)
			}
			w := p.Changes[0].Writes[0]
			if w.Partition != 3 || string(w.Key) != spacedAppLog || w.Value != nil || string(p.Changes[0].Before) != liveAppLog || string(p.Changes[0].After) != liveAppLog {
				t.Errorf("write %+v, task reads %s → %s", w, p.Changes[0].Before, p.Changes[0].After)
			}
			pressSettle(t, m, "enter")
			requireCalls(t, ed, "plan delete-stray file-source", "apply delete-stray file-source")
			send(t, m, tickMsg{})
			for _, r := range m.opts.Source.Partitions(model.ConnectorID{Topic: topic, Name: "file-source"}) {
				if r.ID.Partition == 3 && !r.Deleted || r.ID.Partition == 7 && r.Deleted || r.Live && strings.Contains(r.Partition, "application") && r.Offset != liveAppLog {
					t.Errorf("after the delete: %+v", r)
				}
			}
		})
	}
}

// e on a stray, then enter: the partition's edit starts from the live
// value, not the stray's.
func TestStrayRowPartitionEditStartsFromTheLiveValue(t *testing.T) {
	_, m := openStray(t, "e")
	send(t, m, press("enter")...)
	f, ok := m.form.(*dialogs.EditForm)
	if !ok {
		t.Fatalf("enter opened no offset editor:\n%s", screenText(m))
	}
	if f.Current != liveAppLog || !strings.Contains(f.Fields[0].Area.Value(), "143936") {
		t.Errorf("editor starts from %q / %q, want the live %s", f.Current, f.Fields[0].Area.Value(), liveAppLog)
	}
	requireContains(t, m, "Current offset", liveAppLog)
}

// x on a stray, then enter: a reset of the partition, which tombstones
// the key the task reads.
func TestStrayRowResetActsOnThePartition(t *testing.T) {
	ed, m := openStray(t, "x")
	requireContains(t, m, "reset the partition (what the task reads)")
	pressSettle(t, m, "enter")
	requireCalls(t, ed, "plan reset file-source")
	if m.confirm == nil || m.confirm.Plan.Kind != plan.KindReset {
		t.Fatalf("no reset plan:\n%s", screenText(m))
	}
	for _, w := range m.confirm.Plan.Changes[0].Writes {
		if w.Value != nil {
			t.Errorf("a reset writes a value: %+v", w)
		}
	}
}

// A stray with no live copy beside it (jdbc-orders' hand-written key with
// a space): the dialog says the task reads no offset, and why.
func TestStrayRowWithoutALiveCopySaysTheTaskReadsNothing(t *testing.T) {
	_, ed, m := editModel(t, 140, 40, nil)
	selectPartition(t, m, "jdbc-orders", "payments")
	send(t, m, press("x")...)
	requireContains(t, m, "A stray copy · jdbc-orders", "no offset: no stored key has the bytes the task looks up", "d delete this stray copy only")
	pressSettle(t, m, "enter") // nothing to reset: says so, plans nothing
	if len(ed.Calls()) != 0 {
		t.Errorf("calls %v", ed.Calls())
	}
	requireContains(t, m, "nothing to reset")
}

// An older record of the live key's very bytes in another partition (the
// fixture's copy in partition 7) is a stray too, but a tombstone there
// would delete the task's offset whenever the worker reads that partition
// last (KafkaOffsetBackingStore: one value per key bytes): refused, saying
// so.
func TestSameBytesStrayIsNotDeletedAlone(t *testing.T) {
	_, ed, m := editModel(t, 140, 40, nil)
	selectPartition(t, m, "file-source", `{"position":1}`)
	send(t, m, press("x")...)
	requireContains(t, m, "A stray copy · file-source", "connect-offsets/7", liveAppLog, "The same key bytes as the live copy")
	send(t, m, press("d")...)
	requireContains(t, m, "✗ this copy has the same key bytes", "a tombstone here would delete")
	if len(ed.Calls()) != 0 {
		t.Errorf("calls %v", ed.Calls())
	}
}

// The detail of a stray copy says why the task ignores it and which copy,
// with what value, it reads instead: the stray flag's "see why below".
func TestStrayDetailSaysWhyAndWhatTheTaskReads(t *testing.T) {
	f, _, m := editModel(t, 100, 60, nil)
	f.putAt(t0.Add(-time.Minute), spacedAppLog, `{"position":2}`, 3)
	send(t, m, tickMsg{})
	selectPartition(t, m, "file-source", `{"position":2}`)
	send(t, m, press("enter")...)
	requireContains(t, m, "see why below", "What a restarted task reads", "not this copy: the key has whitespace",
		"reads      connect-offsets/", liveAppLog)
}
