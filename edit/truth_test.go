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

// Class 1 in the plans: the value an edit starts from, and the key it
// writes, are the task's (OffsetStorageReaderImpl.offsets looks up the
// bytes JsonConverter.fromConnectData writes for the task's map), not the
// newest copy and not the copy in the murmur2 partition. Strays stay.
func TestPlan_OffsetStorageReaderImplKeyBytesDecideBeforeAndWrites(t *testing.T) {
	const (
		task   = `["file",{"filename":"/a"}]`
		spaced = `["file", {"filename": "/a"}]`
	)
	cases := []struct {
		name      string
		setup     func(h *harness) (taskTP, strayTP int)
		kind      plan.Kind
		offset    string
		wantWrite bool // a write to the task's key (else: refused)
	}{
		{"set: the task's key outside its murmur2 partition, a newer spaced copy in it", func(h *harness) (int, int) {
			home := java.PartitionFor([]byte(task), 25)
			h.write((home+1)%25, task, `{"position":10}`)
			h.write(java.PartitionFor([]byte(spaced), 25), spaced, `{"position":999}`)
			return (home + 1) % 25, java.PartitionFor([]byte(spaced), 25)
		}, plan.KindSet, `{"position":20}`, true},
		{"reset: only the task's key is tombstoned", func(h *harness) (int, int) {
			home := h.workerWrite(task, `{"position":10}`)
			h.write((home+3)%25, spaced, `{"position":999}`)
			return home, (home + 3) % 25
		}, plan.KindReset, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			taskTP, strayTP := tc.setup(h)
			it := plan.Item{Partition: mustPartition(t, `{"filename":"/a"}`)}
			if tc.offset != "" {
				it.Offset = mustOffset(t, tc.offset)
			}
			pl, err := h.ed.Plan(context.Background(), plan.Request{Connector: "file", Kind: tc.kind, Items: []plan.Item{it}})
			if err != nil {
				t.Fatal(err)
			}
			ch := pl.Changes[0]
			if string(ch.Before) != `{"position":10}` {
				t.Errorf("plan starts from %s, want what the task reads: {\"position\":10}", ch.Before)
			}
			if len(ch.Writes) != 1 || string(ch.Writes[0].Key) != task || ch.Writes[0].Partition != taskTP {
				t.Fatalf("writes %+v, want the task's key in partition %d only", ch.Writes, taskTP)
			}
			if !strings.Contains(strings.Join(pl.Warnings, "\n"), "1 stray copy the task does not read is left as it is") {
				t.Errorf("plan does not say the stray copy stays: %q", pl.Warnings)
			}
			if res, err := h.ed.Apply(context.Background(), pl); err != nil || !res.Verified {
				t.Fatalf("apply: %v %+v", err, res)
			}
			d, _ := h.store.Partition(model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: strayTP}, Key: spaced})
			if d.Offset != `{"position":999}` {
				t.Errorf("the stray copy changed: %s", d.Offset)
			}
		})
	}
}

// Class 4: the optimistic check compares offsets by parsed value
// (model.SameOffset), so a stored value with whitespace or another layout
// never looks "changed since planned".
func TestCheck_LayoutOfAStoredValueIsNoConflict(t *testing.T) {
	for _, stored := range []string{
		`{ "position" : 10 }`,
		"{\n\t\"position\": 10\n}",
		`{"position":10,"file":"a"}`,
		`{"file":"a","position":10}`,
		`{"position":010}`,
		`{"position":10} trailing`,
	} {
		t.Run(stored, func(t *testing.T) {
			h := newHarness(t)
			h.workerWrite(`["file",{"filename":"/a"}]`, stored)
			h.workerWrite(`["file",{"filename":"/b"}]`, `{"position":1}`)
			for _, req := range []plan.Request{
				{Connector: "file", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, `{"filename":"/a"}`), Offset: mustOffset(t, `{"position":11}`)}}},
				{Connector: "file", Kind: plan.KindResetAll},
			} {
				pl, err := h.ed.Plan(context.Background(), req)
				if err != nil {
					t.Fatal(err)
				}
				if err := h.ed.Check(context.Background(), pl); err != nil {
					var c *apply.ConflictError
					if errors.As(err, &c) {
						t.Fatalf("%s: false optimistic conflict: %v", req.Kind, err)
					}
					t.Fatal(err)
				}
			}
		})
	}
}

// A real change still is one, also when only the number form moves
// (Long vs Double: JsonConverter reads 10 and 10.0 differently).
func TestCheck_ARealChangeIsAConflict(t *testing.T) {
	h := newHarness(t)
	key := `["file",{"filename":"/a"}]`
	h.workerWrite(key, `{"position":10}`)
	pl, err := h.ed.Plan(context.Background(), plan.Request{Connector: "file", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, `{"filename":"/a"}`), Offset: mustOffset(t, `{"position":11}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	h.workerWrite(key, `{"position":10.0}`)
	var c *apply.ConflictError
	if err := h.ed.Check(context.Background(), pl); !errors.As(err, &c) {
		t.Fatalf("check = %v, want a conflict", err)
	}
}

// Class 6: what koff writes is what a Java task would write
// (JsonConverter.fromConnectData through Jackson: Double.toString for
// doubles), and a --partition matches stored keys by Java value.
func TestPlan_NewKeysAndValuesWrittenLikeJava(t *testing.T) {
	cases := []struct {
		name               string
		stored             []string // keys already stored (worker-written), value {"p":1}
		partition, offset  string
		wantKey, wantValue string
		wantExisting       bool
	}{
		{"a double in the value", nil, `{"f":"a"}`, `{"p":1.50,"q":100.0,"r":0.00001,"s":1e2}`, `["c",{"f":"a"}]`, `{"p":1.5,"q":100.0,"r":1.0E-5,"s":100.0}`, false},
		{"a double in a new key", nil, `{"x":1.50}`, `{"p":1}`, `["c",{"x":1.5}]`, `{"p":1}`, false},
		{"integers stay as typed, above 2^53 too", nil, `{"f":"a"}`, `{"p":9007199254740993}`, `["c",{"f":"a"}]`, `{"p":9007199254740993}`, false},
		{"1.50 matches the stored key of 1.5", []string{`["c",{"x":1.5}]`}, `{"x":1.50}`, `{"p":2}`, `["c",{"x":1.5}]`, `{"p":2}`, true},
		{"1e2 matches the stored key of 100.0", []string{`["c",{"x":100.0}]`}, `{"x":1e2}`, `{"p":2}`, `["c",{"x":100.0}]`, `{"p":2}`, true},
		{"first key of a connector: HashMap order, as REST writes", nil, `{"table":"t1","database":"db","schema":"public"}`, `{"p":1}`,
			string(model.RESTKey("c", mustObj(`{"table":"t1","database":"db","schema":"public"}`))), `{"p":1}`, false},
		{"a later key: the order of the connector's other keys", []string{`["c",{"table":"t0","database":"db"}]`}, `{"database":"db","table":"t1"}`, `{"p":1}`,
			`["c",{"table":"t1","database":"db"}]`, `{"p":1}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			for _, k := range tc.stored {
				h.workerWrite(k, `{"p":1}`)
			}
			pl, err := h.ed.Plan(context.Background(), plan.Request{Connector: "c", Kind: plan.KindSet, Create: true, Items: []plan.Item{{Partition: mustPartition(t, tc.partition), Offset: mustOffset(t, tc.offset)}}})
			if err != nil {
				t.Fatal(err)
			}
			w := pl.Changes[0].Writes
			if len(w) != 1 || string(w[0].Key) != tc.wantKey || string(w[0].Value) != tc.wantValue || w[0].Existing != tc.wantExisting {
				t.Fatalf("writes %s = %s (existing %v), want %s = %s (existing %v)", w[0].Key, w[0].Value, w[0].Existing, tc.wantKey, tc.wantValue, tc.wantExisting)
			}
			if !tc.wantExisting && w[0].Partition != java.PartitionFor(w[0].Key, 25) {
				t.Errorf("new key in partition %d, want its murmur2 partition", w[0].Partition)
			}
			if _, err := h.ed.Apply(context.Background(), pl); err != nil {
				t.Fatal(err)
			}
			for _, r := range h.rows("c") {
				if r.ID.Key == tc.wantKey && (!r.Live || r.Flags.Suspect()) {
					t.Errorf("koff's own write is not the live copy or is flagged: %+v", r)
				}
			}
		})
	}
}

func mustObj(s string) java.Object {
	p, err := plan.ParsePartition(s)
	if err != nil {
		panic(err)
	}
	return p
}

// Numbers no Java task could hold as typed are written as typed, with a
// warning saying what the task reads.
func TestPlan_WarnsOfNumbersBeyondJava(t *testing.T) {
	h := newHarness(t)
	pl, err := h.ed.Plan(context.Background(), plan.Request{Connector: "c", Kind: plan.KindSet, Create: true, Items: []plan.Item{{Partition: mustPartition(t, `{"f":"a"}`), Offset: mustOffset(t, `{"p":18446744073709551621,"q":1e400}`)}}})
	if err != nil {
		t.Fatal(err)
	}
	warn := strings.Join(pl.Warnings, "\n")
	if !strings.Contains(warn, "p: 18446744073709551621 is beyond a Java long: a task reads 5") || !strings.Contains(warn, "q: 1e400 is beyond a Java double: a task reads \"Infinity\"") {
		t.Errorf("warnings: %s", warn)
	}
	if got := string(pl.Changes[0].Writes[0].Value); got != `{"p":18446744073709551621,"q":1e400}` {
		t.Errorf("value written %s", got)
	}
}

// Class 7: deleting one stray copy tombstones that key in that
// topic-partition only, is verified and audited, and leaves what the task
// reads as it is. The live copy cannot be deleted this way.
func TestDeleteStrayCopyOnly(t *testing.T) {
	h := newHarness(t)
	const (
		task   = `["file",{"filename":"/a"}]`
		spaced = `["file", {"filename": "/a"}]`
	)
	home := h.workerWrite(task, `{"position":10}`)
	strayTP := (home + 2) % 25
	h.write(strayTP, spaced, `{"position":0}`)
	h.write(readBefore(home), task, `{"position":3}`) // the same bytes, read before home…
	h.workerWrite(task, `{"position":10}`)            // …then the worker flushes again
	stray := model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: strayTP}, Key: spaced}
	pl, err := h.ed.Plan(context.Background(), plan.Request{Connector: "file", Kind: plan.KindDeleteStray, Items: []plan.Item{{Partition: mustPartition(t, `{"filename":"/a"}`), Stray: &stray}}})
	if err != nil {
		t.Fatal(err)
	}
	ch := pl.Changes[0]
	if len(ch.Writes) != 1 || ch.Writes[0].TopicPartition != stray.TopicPartition || string(ch.Writes[0].Key) != spaced || ch.Writes[0].Value != nil {
		t.Fatalf("writes %+v, want one tombstone of the stray key in %s", ch.Writes, stray.TopicPartition)
	}
	if string(ch.Before) != `{"position":10}` || string(ch.After) != `{"position":10}` || pl.Path != plan.PathTopic {
		t.Errorf("task reads %s → %s via %s, want {\"position\":10} unchanged, via the topic", ch.Before, ch.After, pl.Path)
	}
	res, err := h.ed.Apply(context.Background(), pl)
	if err != nil || !res.Verified {
		t.Fatalf("apply: %v %+v", err, res)
	}
	for _, r := range h.rows("file") {
		switch {
		case r.ID == stray && !r.Deleted:
			t.Errorf("stray copy not deleted: %+v", r)
		case r.ID != stray && r.Deleted:
			t.Errorf("another copy was deleted: %+v", r)
		case r.Live && r.Offset != `{"position":10}`:
			t.Errorf("live copy changed: %+v", r)
		}
	}
	entries, err := h.ed.Audit.Entries()
	if err != nil || len(entries) == 0 || entries[len(entries)-1].Kind != plan.KindDeleteStray || entries[len(entries)-1].Result != "verified" {
		t.Errorf("audit: %v %+v", err, entries)
	}
	// The older record of the live key's bytes in another partition is a
	// stray, but a tombstone of those bytes would delete the task's offset
	// whenever the worker reads that partition last: refused.
	dup := model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: readBefore(home)}, Key: task}
	if _, err := h.ed.Plan(context.Background(), plan.Request{Connector: "file", Kind: plan.KindDeleteStray, Items: []plan.Item{{Partition: mustPartition(t, `{"filename":"/a"}`), Stray: &dup}}}); err == nil || err.Error() != planner.SameBytesStray {
		t.Errorf("deleting a same-bytes copy alone: %v", err)
	}
	// The live copy is not a stray.
	var live model.PartitionID
	for _, r := range h.rows("file") {
		if r.Live {
			live = r.ID
		}
	}
	if _, err := h.ed.Plan(context.Background(), plan.Request{Connector: "file", Kind: plan.KindDeleteStray, Items: []plan.Item{{Partition: mustPartition(t, `{"filename":"/a"}`), Stray: &live}}}); err == nil || !strings.Contains(err.Error(), "the one the task reads") {
		t.Errorf("deleting the live copy as a stray: %v", err)
	}
}

// Undo puts each copy back to its own before-value, record for record:
// one value for all copies would move what the task reads (the worker keeps
// whichever record of the same bytes it reads last) or give a stray the
// live offset.
func TestUndo_RestoresEachCopyToItsOwnValue(t *testing.T) {
	const (
		task   = `["file",{"filename":"/a"}]`
		spaced = `["file", {"filename": "/a"}]`
	)
	for _, tc := range []struct {
		name string
		req  func(t *testing.T, h *harness, stray model.PartitionID) plan.Request
	}{
		{"set", func(t *testing.T, h *harness, _ model.PartitionID) plan.Request {
			return plan.Request{Connector: "file", Kind: plan.KindSet, Items: []plan.Item{{Partition: mustPartition(t, `{"filename":"/a"}`), Offset: mustOffset(t, `{"position":20}`)}}}
		}},
		{"reset-all", func(t *testing.T, h *harness, _ model.PartitionID) plan.Request {
			return plan.Request{Connector: "file", Kind: plan.KindResetAll}
		}},
		{"delete-stray", func(t *testing.T, h *harness, stray model.PartitionID) plan.Request {
			return plan.Request{Connector: "file", Kind: plan.KindDeleteStray, Items: []plan.Item{{Partition: mustPartition(t, `{"filename":"/a"}`), Stray: &stray}}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			home := java.PartitionFor([]byte(task), 25)
			h.write(readBefore(home), task, `{"position":3}`) // the same bytes, read before home
			time.Sleep(5 * time.Millisecond)
			h.write(home, task, `{"position":10}`)
			h.write((home+2)%25, spaced, `{ "position" : 0 }`) // a stray, with its own layout
			stray := model.PartitionID{TopicPartition: model.TopicPartition{Topic: "connect-offsets", Partition: (home + 2) % 25}, Key: spaced}
			before := map[model.PartitionID]string{}
			for _, r := range h.rows("file") {
				before[r.ID] = string(r.Stored)
			}
			pl, err := h.ed.Plan(context.Background(), tc.req(t, h, stray))
			if err != nil {
				t.Fatal(err)
			}
			if res, err := h.ed.Apply(context.Background(), pl); err != nil || !res.Verified {
				t.Fatalf("apply: %v %+v", err, res)
			}
			req, _, err := h.ed.UndoRequest("file")
			if err != nil {
				t.Fatal(err)
			}
			undo, err := h.ed.Plan(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if undo.Path != plan.PathTopic {
				t.Errorf("undo path %s (%s)", undo.Path, undo.PathReason)
			}
			if res, err := h.ed.Apply(context.Background(), undo); err != nil || !res.Verified {
				t.Fatalf("undo: %v %+v", err, res)
			}
			for _, r := range h.rows("file") {
				if want := before[r.ID]; string(r.Stored) != want {
					t.Errorf("%s holds %q after undo, want its own before-value %q", r.ID.TopicPartition, r.Stored, want)
				}
				if r.Live && r.TaskReads != `{"position":10}` {
					t.Errorf("the task reads %s after undo, want {\"position\":10}", r.TaskReads)
				}
			}
		})
	}
}
