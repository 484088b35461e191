package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/model"
)

// auditEdits reads an audit log as koff groups it.
func auditEdits(t *testing.T, path string) []audit.Edit {
	t.Helper()
	eds, err := (&audit.Log{Path: path}).Edits()
	if err != nil {
		t.Fatal(err)
	}
	return eds
}

// A rewind is its own kind of edit everywhere it is told: the plan, the
// result line, the audit line (its time as typed and as read, --if-newer,
// the command), koff audit and undo; the result line's undo command names
// the edit, and pasted later it undoes that edit, not the newer one.
func TestARewindIsAuditedAndToldAsARewind(t *testing.T) {
	addr := offsetsBroker(t)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	key := `["pg",{"server":"db"}]`
	commitAt(t, addr, "connect-offsets", key, `{"lsn":10}`, t0)
	commitAt(t, addr, "connect-offsets", key, `{"lsn":20}`, t0.Add(time.Hour))
	commitAt(t, addr, "connect-offsets", `["pg",{"server":"new"}]`, `{"lsn":7}`, t0.Add(2*time.Hour))
	audit := filepath.Join(t.TempDir(), "audit.jsonl")

	given := "2026-11-29T01:30:00+00:00"
	out, errs, code := koff(t, "set", "pg", "-b", addr, "--to-datetime", given, "--if-newer", "reset", "--yes", "--audit-log", audit)
	if code != 0 {
		t.Fatalf("rewind: exit %d %s\n%s", code, errs, out)
	}
	at, shown := "2026-11-29T01:30:00.000Z", "2026-11-29 01:30:00.000 UTC"
	eds := auditEdits(t, audit)
	if len(eds) != 1 {
		t.Fatalf("want one edit in the audit log, got %d", len(eds))
	}
	s := eds[0].Start
	if s.Kind != plan.KindRewind || s.Rewind == nil || s.Rewind.At != at || s.Rewind.Given != given || s.Rewind.IfNewer != "reset" ||
		!strings.Contains(s.Command, "koff set pg --to-datetime") || !strings.Contains(s.Command, "--if-newer reset") {
		t.Errorf("the audit line does not tell the rewind: kind %s, rewind %+v, command %q", s.Kind, s.Rewind, s.Command)
	}
	id := eds[0].ID()
	for _, want := range []string{
		"Plan: rewind 2 partitions of pg to " + shown + "\n",
		": rewind of pg to " + shown + ", 2 partitions via offsets topic",
		"  undo: koff undo pg --edit " + id + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the rewind's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "import") {
		t.Errorf("a rewind is told as an import:\n%s", out)
	}

	table, _, code := koff(t, "audit", "--all-clusters", "--audit-log", audit)
	if code != 0 || !regexp.MustCompile(`rewind to `+regexp.QuoteMeta(shown)+`\s+verified|rewind to `+regexp.QuoteMeta(shown)+`\s+\S`).MatchString(table) {
		t.Errorf("koff audit does not list the rewind with its time: exit %d\n%s", code, table)
	}
	js, _, _ := koff(t, "audit", "--all-clusters", "--audit-log", audit, "-o", "json")
	var rows []struct {
		Kind   string           `json:"kind"`
		Rewind plan.RewindAsked `json:"rewind"`
	}
	if err := json.Unmarshal([]byte(js), &rows); err != nil || len(rows) != 1 || rows[0].Kind != "rewind" || rows[0].Rewind.At != at || rows[0].Rewind.Given != given {
		t.Errorf("koff audit -o json: %v %s", err, js)
	}

	// A newer edit; the printed undo still undoes the rewind.
	if _, errs, code := koff(t, "set", "pg", "-b", addr, "--partition", `{"server":"db"}`, "--offset", `{"lsn":99}`, "--yes", "--audit-log", audit); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code = koff(t, "undo", "pg", "--edit", id, "-b", addr, "--audit-log", audit, "--dry-run")
	if code != 0 || !strings.Contains(out, "Undoing the rewind of pg to "+shown+" by ") || !strings.Contains(out, "(edit "+id+")") {
		t.Errorf("the pasted undo does not name the rewind: exit %d %s\n%s", code, errs, out)
	}
}

// The commit a rewind takes says when it was koff's own edit, as koff
// history marks it: its kind, id, user and time.
func TestARewindSaysWhenItTakesKoffsOwnEdit(t *testing.T) {
	addr := offsetsBroker(t)
	key := `["pg",{"server":"db"}]`
	commitAt(t, addr, "connect-offsets", key, `{"lsn":1}`, time.Now().Add(-time.Hour))
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	if _, errs, code := koff(t, "set", "pg", "-b", addr, "--partition", `{"server":"db"}`, "--offset", `{"lsn":5}`, "--yes", "--audit-log", audit); code != 0 {
		t.Fatal(errs)
	}
	set := auditEdits(t, audit)[0]
	time.Sleep(300 * time.Millisecond)
	flush := time.Now()
	commitAt(t, addr, "connect-offsets", key, `{"lsn":8}`, flush) // the worker's flush after it
	at := flush.Add(-150 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	out, errs, code := koff(t, "set", "pg", "-b", addr, "--to-datetime", at, "--dry-run", "--audit-log", audit)
	if code != 0 {
		t.Fatalf("rewind: exit %d %s\n%s", code, errs, out)
	}
	want := "← koff set " + set.ID() + " by " + set.Start.User + " at " + model.TimeText(set.Start.Time)
	if !strings.Contains(out, `{"lsn":5}, committed`) || !strings.Contains(out, want) {
		t.Errorf("the plan does not say the commit taken was koff's set (want %q):\n%s", want, out)
	}
	// A worker's commit is not marked.
	at = flush.Add(time.Millisecond).UTC().Format(time.RFC3339Nano)
	time.Sleep(10 * time.Millisecond)
	out, _, _ = koff(t, "set", "pg", "-b", addr, "--to-datetime", at, "--dry-run", "--audit-log", audit)
	if strings.Contains(out, "← koff") {
		t.Errorf("a worker's commit is marked as koff's:\n%s", out)
	}
}

// --edit takes any part of an id only one edit has: its start, as git
// takes a short sha, or its random end; among the edits undo could put
// back (of the connector named) first. A part several have lists them and
// exits 2; a part none has is one line, exit 1.
func TestUndoEditTakesAUniquePartOfTheID(t *testing.T) {
	addr := offsetsBroker(t)
	produceConnect(t, addr, [2]string{`["src",{"file":"a"}]`, `{"pos":1}`})
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	for _, v := range []string{`{"pos":2}`, `{"pos":3}`} {
		if _, errs, code := koff(t, "set", "src", "-b", addr, "--partition", `{"file":"a"}`, "--offset", v, "--yes", "--audit-log", audit); code != 0 {
			t.Fatal(errs)
		}
	}
	eds := auditEdits(t, audit)
	first, second := eds[0].ID(), eds[1].ID()

	// The random end of the first.
	tail := first[strings.LastIndexByte(first, '-')+1:]
	out, errs, code := koff(t, "undo", "src", "--edit", tail, "-b", addr, "--audit-log", audit, "--dry-run")
	if code != 0 || !strings.Contains(out, "(edit "+first+")") {
		t.Errorf("--edit %s (its end): exit %d %s\n%s", tail, code, errs, out)
	}
	// A prefix only the second has.
	n := 0
	for n < len(second) && n < len(first) && first[n] == second[n] {
		n++
	}
	out, errs, code = koff(t, "undo", "src", "--edit", second[:n+1], "-b", addr, "--audit-log", audit, "--dry-run")
	if code != 0 || !strings.Contains(out, "(edit "+second+")") {
		t.Errorf("--edit %s (a prefix): exit %d %s\n%s", second[:n+1], code, errs, out)
	}
	// The day both were made in: both are listed, exit 2.
	_, errs, code = koff(t, "undo", "src", "--edit", first[:8], "-b", addr, "--audit-log", audit, "--dry-run")
	if code != ExitUsage || !strings.Contains(errs, first) || !strings.Contains(errs, second) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("an ambiguous --edit: exit %d %q", code, errs)
	}
	// Among the edits undo could put back: the one edit of other that day.
	produceConnect(t, addr, [2]string{`["other",{"file":"b"}]`, `{"pos":1}`})
	if _, errs, code := koff(t, "set", "other", "-b", addr, "--partition", `{"file":"b"}`, "--offset", `{"pos":2}`, "--yes", "--audit-log", audit); code != 0 {
		t.Fatal(errs)
	}
	third := auditEdits(t, audit)[2].ID()
	out, errs, code = koff(t, "undo", "other", "--edit", first[:8], "-b", addr, "--audit-log", audit, "--dry-run")
	if code != 0 || !strings.Contains(out, "(edit "+third+")") {
		t.Errorf("--edit %s of other: exit %d %s\n%s", first[:8], code, errs, out)
	}
	_, errs, code = koff(t, "undo", "src", "--edit", "nosuchedit", "-b", addr, "--audit-log", audit, "--dry-run")
	if code != ExitFailed || !strings.Contains(errs, "no edit nosuchedit") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("an unknown --edit: exit %d %q", code, errs)
	}
}
