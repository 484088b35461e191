package edit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"koff/edit/apply"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
	"koff/model/java"
)

// A Java worker that builds partition maps in a LinkedHashMap writes keys
// that are not in HashMap order. Editing must rewrite those exact bytes in
// the partition they live in, not add a second key.
func TestSetRewritesExistingKeyBytesInPlace(t *testing.T) {
	h := newHarness(t)
	key := `["jdbc",{"table":"t1","database":"db","schema":"public","a":1}]` // LinkedHashMap order
	p := h.workerWrite(key, `{"incrementing":5}`)
	pl, err := h.ed.Plan(context.Background(), plan.Request{Connector: "jdbc", Kind: plan.KindSet, Items: []plan.Item{{
		Partition: mustPartition(t, `{"schema":"public","a":1,"database":"db","table":"t1"}`), // other field order: still the same partition
		Offset:    mustOffset(t, `{"incrementing":9223372036854775807}`),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if pl.Path != plan.PathTopic || len(pl.Changes) != 1 || len(pl.Changes[0].Writes) != 1 {
		t.Fatalf("plan = %+v", pl)
	}
	w := pl.Changes[0].Writes[0]
	if string(w.Key) != key || w.Partition != p || !w.Existing || string(w.Before) != `{"incrementing":5}` {
		t.Errorf("write = %s to %s (existing %v, before %s), want the stored key in partition %d", w.Key, w.TopicPartition, w.Existing, w.Before, p)
	}
	if string(pl.Changes[0].Before) != `{"incrementing":5}` || string(pl.Changes[0].After) != `{"incrementing":9223372036854775807}` {
		t.Errorf("before/after = %s → %s", pl.Changes[0].Before, pl.Changes[0].After)
	}
	if !strings.Contains(pl.Command, `koff set jdbc --partition '{"table":"t1","database":"db","schema":"public","a":1}' --offset '{"incrementing":9223372036854775807}' -b 127.0.0.1:`) {
		t.Errorf("command = %s", pl.Command)
	}
	res, err := h.ed.Apply(context.Background(), pl)
	if err != nil || !res.Verified {
		t.Fatalf("apply: %v, verified %v", err, res.Verified)
	}
	rows := h.rows("jdbc")
	if len(rows) != 1 || rows[0].Offset != `{"incrementing":9223372036854775807}` || rows[0].ID.Key != key {
		t.Errorf("after the edit: %+v (want one key, edited in place)", rows)
	}
}

func TestSetNewPartitionLandsInItsMurmur2Partition(t *testing.T) {
	h := newHarness(t)
	h.workerWrite(`["jdbc",{"protocol":"1","table":"shop.orders"}]`, `{"incrementing":1}`)
	pl, err := h.ed.Plan(context.Background(), plan.Request{Connector: "jdbc", Kind: plan.KindSet, Create: true, Items: []plan.Item{{
		// Typed in another order: the sibling keys' order wins, since that
		// is how the task serialises its maps.
		Partition: mustPartition(t, `{"table":"shop.payments","protocol":"1"}`),
		Offset:    mustOffset(t, `{"incrementing":9007199254740993}`),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	w := pl.Changes[0].Writes[0]
	wantKey := `["jdbc",{"protocol":"1","table":"shop.payments"}]`
	if string(w.Key) != wantKey || w.Existing || w.Partition != java.PartitionFor([]byte(wantKey), 25) || pl.Changes[0].Before != nil {
		t.Fatalf("write = %s → %s existing=%v", w.Key, w.TopicPartition, w.Existing)
	}
	if _, err := h.ed.Apply(context.Background(), pl); err != nil {
		t.Fatal(err)
	}
	d, ok := h.store.Partition(model.PartitionID{TopicPartition: w.TopicPartition, Key: wantKey})
	if !ok || string(d.Value) != `{"incrementing":9007199254740993}` || d.Flags.Suspect() {
		t.Errorf("stored: %+v", d.PartitionRow)
	}
}

func TestResetTombstonesEveryCopy(t *testing.T) {
	h := newHarness(t)
	key := `["file",{"filename":"/a"}]`
	home := h.workerWrite(key, `{"position":10}`)
	time.Sleep(5 * time.Millisecond)                              // a later record timestamp (milliseconds)
	h.write(readAfter(home), key, `{"position":3}`)               // a copy a restarted worker reads later
	h.workerWrite(`["file",{"filename":"/b"}]`, `{"position":7}`) // untouched
	pl, err := h.ed.Plan(context.Background(), plan.Request{Connector: "file", Kind: plan.KindReset, Items: []plan.Item{{Partition: mustPartition(t, `{"filename":"/a"}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pl.Changes[0].Writes); n != 2 {
		t.Fatalf("%d writes, want a tombstone for both copies", n)
	}
	// The same key bytes in two partitions: KafkaOffsetBackingStore keeps
	// the record it reads last.
	if string(pl.Changes[0].Before) != `{"position":3}` {
		t.Errorf("before = %s, want the copy read last", pl.Changes[0].Before)
	}
	if res, err := h.ed.Apply(context.Background(), pl); err != nil || !res.Verified {
		t.Fatalf("apply: %v %+v", err, res)
	}
	for _, r := range h.rows("file") {
		if strings.Contains(r.Partition, "/a") != r.Deleted {
			t.Errorf("%s deleted=%v", r.Partition, r.Deleted)
		}
	}
	if !strings.HasPrefix(pl.Command, `koff reset file --partition '{"filename":"/a"}'`) {
		t.Errorf("command = %s", pl.Command)
	}
}

func TestResetAllAsksForEveryLivePartition(t *testing.T) {
	h := newHarness(t)
	h.workerWrite(`["mm2",{"cluster":"primary","partition":0,"topic":"orders"}]`, `{"offset":1}`)
	h.workerWrite(`["mm2",{"cluster":"primary","partition":1,"topic":"orders"}]`, `{"offset":2}`)
	h.workerWrite(`["mm2",{"cluster":"primary","partition":2,"topic":"orders"}]`, ``)
	pl, err := h.ed.Plan(context.Background(), plan.Request{Connector: "mm2", Kind: plan.KindResetAll})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Changes) != 2 || !strings.HasPrefix(pl.Command, "koff reset mm2 -b") {
		t.Fatalf("changes %d, command %s", len(pl.Changes), pl.Command)
	}
	if _, err := h.ed.Apply(context.Background(), pl); err != nil {
		t.Fatal(err)
	}
	var none *planner.NothingToResetError
	if _, err := h.ed.Plan(context.Background(), plan.Request{Connector: "mm2", Kind: plan.KindResetAll}); !errors.As(err, &none) {
		t.Errorf("second reset-all: %v", err)
	}
}

func TestConflictAndReadOnlyWriteNothing(t *testing.T) {
	h := newHarness(t)
	key := `["src",{"server":"db"}]`
	h.workerWrite(key, `{"lsn":1}`)
	req := plan.Request{Connector: "src", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, `{"server":"db"}`), Offset: mustOffset(t, `{"lsn":0}`)}}}
	pl, err := h.ed.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	h.workerWrite(key, `{"lsn":2}`) // the worker flushed while the dialog was open
	before := h.endOffsets()
	_, err = h.ed.Apply(context.Background(), pl)
	var conflict *apply.ConflictError
	if !errors.As(err, &conflict) || string(conflict.Now) != `{"lsn":2}` {
		t.Fatalf("apply after a concurrent change: %v", err)
	}
	if !strings.Contains(err.Error(), `it is now {"lsn":2}`) {
		t.Errorf("message: %v", err)
	}
	h.ed.ReadOnly = true
	pl, _ = h.ed.Plan(context.Background(), req)
	if _, err := h.ed.Apply(context.Background(), pl); !errors.Is(err, apply.ErrReadOnly) {
		t.Errorf("read-only apply: %v", err)
	}
	if after := h.endOffsets(); after != before {
		t.Errorf("end offsets moved from %d to %d: something was written", before, after)
	}
	entries, _ := h.ed.Audit.Entries()
	if len(entries) != 2 || entries[0].Result != "refused" || entries[1].Result != "refused" {
		t.Errorf("audit: %+v", entries)
	}
}

func TestAuditAndUndoRestoreBeforeValues(t *testing.T) {
	h := newHarness(t)
	h.workerWrite(`["src",{"server":"a"}]`, `{"lsn":9007199254740993}`)
	h.workerWrite(`["src",{"server":"b"}]`, `{"lsn":5}`)
	ctx := context.Background()
	pl, err := h.ed.Plan(ctx, plan.Request{Connector: "src", Kind: plan.KindImport, Create: true, Items: []plan.Item{
		{Partition: mustPartition(t, `{"server":"a"}`), Offset: mustOffset(t, `{"lsn":1}`)},
		{Partition: mustPartition(t, `{"server":"b"}`)},
		{Partition: mustPartition(t, `{"server":"c"}`), Offset: mustOffset(t, `{"lsn":3}`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.Apply(ctx, pl); err != nil {
		t.Fatal(err)
	}
	edits, err := h.ed.Audit.Edits()
	if err != nil || len(edits) != 1 {
		t.Fatalf("audited edits: %v %d", err, len(edits))
	}
	e := edits[0].Start
	if e.User != "tester" || e.Connector != "src" || edits[0].Result() != "verified" || e.Path != plan.PathTopic || len(e.Changes) != 3 {
		t.Errorf("audit entry: %+v", e)
	}
	if string(e.Changes[0].Before) != `{"lsn":9007199254740993}` || string(e.Changes[1].After) != "null" || string(e.Changes[2].Before) != "null" {
		t.Errorf("audit changes: %s %s %s", e.Changes[0].Before, e.Changes[1].After, e.Changes[2].Before)
	}

	req, _, err := h.ed.UndoRequest("")
	if err != nil {
		t.Fatal(err)
	}
	undo, err := h.ed.Plan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.Apply(ctx, undo); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range h.rows("src") {
		got[r.Partition] = r.Offset
		if r.Deleted {
			got[r.Partition] = "deleted"
		}
	}
	want := map[string]string{`{"server":"a"}`: `{"lsn":9007199254740993}`, `{"server":"b"}`: `{"lsn":5}`, `{"server":"c"}`: "deleted"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("after undo %s = %s, want %s", k, got[k], v)
		}
	}
}

func TestPlanRefusesSinkPartitionsAndBadInput(t *testing.T) {
	h := newHarness(t)
	_, err := h.ed.Plan(context.Background(), plan.Request{Connector: "s", Kind: plan.KindSet, Create: true, Group: "connect-s", Items: []plan.Item{{
		Partition: mustPartition(t, `{"kafka_topic":"t","kafka_partition":0}`), Offset: mustOffset(t, `{"kafka_offset":5}`)}}})
	// A sink-shaped partition goes to the sink path, which checks the topic.
	if err == nil || !strings.Contains(err.Error(), "Unknown Topic Or Partition") {
		t.Errorf("sink partition of a missing topic: %v", err)
	}
	if _, _, err := plan.ParseOffset(`{"a":{"b":1}}`); err == nil || err.Error() != "Offsets may only contain primitive types as values, but field a contains MAP" {
		t.Errorf("nested offset: %v", err)
	}
	if _, _, err := plan.ParseOffset(`[1]`); err == nil {
		t.Error("array offset accepted")
	}
	if _, err := h.ed.Plan(context.Background(), plan.Request{Connector: "nobody", Kind: plan.KindReset, Create: true, Items: []plan.Item{{Partition: mustPartition(t, `{"x":1}`)}}}); err == nil || !strings.Contains(err.Error(), "has no offset for source partition") {
		t.Errorf("reset of a missing partition: %v", err)
	}
}

func TestCopyGivesAnOrphansOffsetsToAnotherConnector(t *testing.T) {
	h := newHarness(t)
	h.workerWrite(`["old-orders",{"protocol":"1","table":"orders"}]`, `{"incrementing":9007199254740993}`)
	h.workerWrite(`["old-orders",{"protocol":"1","table":"gone"}]`, ``)
	req, err := h.ed.CopyRequest("old-orders", "new-orders")
	if err != nil {
		t.Fatal(err)
	}
	// A target koff has never seen is refused as a likely typo…
	var unknown *planner.UnknownConnectorError
	if _, err := h.ed.Plan(context.Background(), req); !errors.As(err, &unknown) {
		t.Fatalf("copy to an unknown name: %v", err)
	}
	// …unless --create says a new connector's offsets are meant.
	req.Create = true
	pl, err := h.ed.Plan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Changes) != 1 || pl.Changes[0].Writes[0].Existing {
		t.Fatalf("plan = %+v", pl.Changes)
	}
	if _, err := h.ed.Apply(context.Background(), pl); err != nil {
		t.Fatal(err)
	}
	rows := h.rows("new-orders")
	if len(rows) != 1 || rows[0].Offset != `{"incrementing":9007199254740993}` || rows[0].Flags.Suspect() {
		t.Errorf("copied: %+v", rows)
	}
	if _, err := h.ed.CopyRequest("nobody", "x"); err == nil {
		t.Error("copy of a connector without offsets should fail")
	}
}
