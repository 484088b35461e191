package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"koff/edit/plan"
)

func testEntry(id, connector, result string) Entry {
	return Entry{ID: id, Time: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), User: "alice", PID: 1, Host: "elsewhere", Connector: connector,
		Kind: plan.KindImport, Path: plan.PathTopic, Result: result, Cluster: "c1",
		Changes: []Change{{Partition: json.RawMessage(`{"t":1}`), Before: json.RawMessage(`{"id":1}`), After: json.RawMessage(`{"id":2}`),
			Writes: []string{"connect-offsets/3"}, Records: []Record{{TopicPartition: "connect-offsets/3", Key: `["src",{"t":1}]`, Before: bytesPtr([]byte(`{"id":1}`)), Value: bytesPtr([]byte(`{"id":2}`))}}}},
		Positions: map[string]int64{"connect-offsets/3": 7}}
}

func lineOf(t *testing.T, e Entry) string {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A write cut short (a full disk, a file size limit, a crash) leaves a half
// line with no newline. The next edit's write-ahead line starts a fresh
// line, so it is read, undo finds it, and the cut line is reported by file
// and line number, never passed over in silence.
func TestAnAppendAfterACutLineStartsAFreshLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	whole := lineOf(t, testEntry("e1", "src", ResultVerified))
	cut := lineOf(t, testEntry("e2", "src", ResultInProgress))
	if err := os.WriteFile(path, []byte(whole+"\n"+cut[:len(cut)/2]), 0o600); err != nil {
		t.Fatal(err)
	}
	log := &Log{Path: path}
	if err := log.Append(testEntry("e3", "src", ResultInProgress)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[2], `{"id":"e3"`) {
		t.Fatalf("the append did not start a fresh line:\n%s", b)
	}
	eds, err := log.Edits()
	if err != nil {
		t.Fatal(err)
	}
	if len(eds) != 2 || eds[1].ID() != "e3" || eds[1].Result() != ResultInProgress {
		t.Fatalf("the edit after the cut line is lost: %+v", eds)
	}
	if n, _ := log.Interrupted("c1"); len(n) != 1 || n[0].ID() != "e3" {
		t.Errorf("the interrupted edit after the cut line is not announced: %v", n)
	}
	bad := log.Unreadable()
	if len(bad) != 1 || bad[0].Line != 2 || bad[0].Path != path || !strings.Contains(bad[0].String(), "line 2: cut short") || !strings.Contains(bad[0].String(), "skipped") {
		t.Errorf("the cut line is not reported: %v", bad)
	}
}

// A log written by an older koff has the next line glued to the cut one:
// the whole entry after the cut part is still read, and the line reported.
func TestAGluedLineGivesUpOnlyItsCutPart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	cut := lineOf(t, testEntry("e1", "src", ResultInProgress))
	next := lineOf(t, testEntry("e2", "src", ResultInProgress))
	if err := os.WriteFile(path, []byte(cut[:len(cut)-40]+next+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	log := &Log{Path: path}
	eds, err := log.Edits()
	if err != nil || len(eds) != 1 || eds[0].ID() != "e2" || len(eds[0].Start.Changes) != 1 {
		t.Fatalf("the glued write-ahead line is lost: %v %+v", err, eds)
	}
	if bad := log.Unreadable(); len(bad) != 1 || bad[0].Line != 1 || !strings.Contains(bad[0].Why, "glued") {
		t.Errorf("the glued line is not reported: %v", bad)
	}
}

// Garbage and lines without an edit's fields are skipped and reported,
// each by its line number; none is shown as an edit.
func TestLinesThatAreNoEditAreReportedNotShown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	lines := []string{
		lineOf(t, testEntry("e1", "src", ResultVerified)),
		"not json at all",
		"{}",
		`{"id":"x","note":"hello"}`,
		"null",
		`[1,2]`,
		"",
		lineOf(t, testEntry("e2", "src", ResultVerified)),
		"\x00\x00\x00",
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	log := &Log{Path: path}
	eds, err := log.Edits()
	if err != nil || len(eds) != 2 || eds[0].ID() != "e1" || eds[1].ID() != "e2" {
		t.Fatalf("want the two edits only: %v %+v", err, eds)
	}
	var got []int
	for _, u := range log.Unreadable() {
		got = append(got, u.Line)
	}
	if want := []int{2, 3, 4, 5, 6, 9}; !equalInts(got, want) {
		t.Errorf("unreadable lines %v, want %v", got, want)
	}
	if txt := UnreadableText(log.Unreadable()); !strings.Contains(txt, path+" lines 2, 3, 4, 5, 6, and 1 more: unreadable") {
		t.Errorf("the one-line report: %q", txt)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The interrupted-edit notices name the edit in their undo command: koff
// status the whole id, the dashboard's header its random end, which keeps
// the command whole in 80 columns and which --edit takes as well.
func TestTheInterruptedNoticesNameTheEdit(t *testing.T) {
	en := testEntry("20261201T100000.000Z-deadbeef", "jdbc-orders", ResultInProgress)
	ed := Edit{Start: en}
	if n := ed.Notice(); !strings.Contains(n, "run `koff undo jdbc-orders --edit 20261201T100000.000Z-deadbeef`") {
		t.Errorf("koff status's notice: %s", n)
	}
	h := ed.Headline()
	cmd := "koff undo jdbc-orders --edit deadbeef puts back"
	if i := strings.Index(h, cmd); i < 0 || len("⚠ ")+i+len("koff undo jdbc-orders --edit deadbeef") > 80 {
		t.Errorf("the header's notice does not name the edit within 80 columns: %s", h)
	}
	if i, err := FindEdit([]Edit{{Start: testEntry("20261201T090000.000Z-cafef00d", "jdbc-orders", ResultVerified)}, ed}, "deadbeef"); err != nil || i != 1 {
		t.Errorf("--edit deadbeef: %d %v", i, err)
	}
}
