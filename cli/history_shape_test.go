package cli

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// koff history as an operator reads it: one timeline across
// topic-partitions, its columns aligned; JSON that every parser takes for
// every stored value, with different bytes never alike, what the worker
// cannot read marked so, and a record without a timestamp said to be one.
func TestHistoryIsOneAlignedTimelineAndValidJSON(t *testing.T) {
	addr := offsetsBroker(t)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	a, b := `["pg",{"server":"a"}]`, `["pg",{"server":"a-much-longer-name"}]`
	commitAt(t, addr, "connect-offsets", a, `{"lsn":1}`, t0)
	commitAt(t, addr, "connect-offsets", b, `{"lsn":2}`, t0.Add(time.Minute))
	commitAt(t, addr, "connect-offsets", a, `{"lsn":3}`, t0.Add(2*time.Minute))
	commitAt(t, addr, "connect-offsets", b, "{\"lsn\":4,\r\"x\":5}", t0.Add(3*time.Minute))
	commitAt(t, addr, "connect-offsets", a, "{\"lsn\":\"\x1b[31m\"}", t0.Add(4*time.Minute))
	commitAt(t, addr, "connect-offsets", b, "{\"lsn\":\"\xff\"}", t0.Add(5*time.Minute))
	commitAt(t, addr, "connect-offsets", b, "{\"lsn\":\"\xfe\"}", t0.Add(6*time.Minute))
	commitAt(t, addr, "connect-offsets", a, `{"lsn":6}`, time.UnixMilli(-1))

	out, errs, code := koff(t, "history", "pg", "-b", addr)
	if code != 0 {
		t.Fatalf("history: exit %d %s", code, errs)
	}
	t.Logf("%s", out)
	lines := strings.Split(out, "\n")
	head := lines[0]
	cols := []int{strings.Index(head, "RECORD"), strings.Index(head, "COPY"), strings.Index(head, "PARTITION"), strings.Index(head, "VALUE")}
	var body []string
	for _, l := range lines[1:] {
		if l == "" {
			break
		}
		body = append(body, l)
		for i, c := range cols {
			if c < 1 || len(l) <= c || l[c-1] != ' ' || l[c] == ' ' {
				t.Errorf("column %d of %q does not start at %d, as the header's:\n%s", i, l, c, out)
			}
		}
	}
	want := []string{"(no timestamp)", "01:00:00.000 UTC", "01:01:00.000 UTC", "01:02:00.000 UTC", "01:03:00.000 UTC", "01:04:00.000 UTC", "01:05:00.000 UTC", "01:06:00.000 UTC"}
	if len(body) != len(want) {
		t.Fatalf("%d commits listed, want %d:\n%s", len(body), len(want), out)
	}
	for i, w := range want {
		if !strings.Contains(body[i][:27], w) {
			t.Errorf("line %d is not the commit of %s (time order across topic-partitions):\n%s", i+1, w, out)
		}
	}
	if strings.Contains(out, "1969") || !strings.Contains(out, `\x1b[31m`) || !strings.Contains(out, `\xff`) || !strings.Contains(out, `\xfe`) || !strings.Contains(out, "(unreadable: ") {
		t.Errorf("text history hides what is stored:\n%s", out)
	}

	raw, errs, code := koff(t, "history", "pg", "-b", addr, "-o", "json")
	if code != 0 || !json.Valid([]byte(raw)) {
		t.Fatalf("history -o json: exit %d %s, valid JSON %v:\n%q", code, errs, json.Valid([]byte(raw)), raw)
	}
	var h struct {
		Commits []map[string]any `json:"commits"`
	}
	if err := json.Unmarshal([]byte(raw), &h); err != nil {
		t.Fatal(err)
	}
	values := map[string]map[string]any{}
	for _, c := range h.Commits {
		v, _ := json.Marshal(c["value"])
		values[string(v)] = c
		if v := string(v); (c["time"] == nil) != (v == `{"lsn":6}`) {
			t.Errorf("time %v of the commit of %s: only the record without a timestamp has none", c["time"], v)
		}
	}
	if c := values[`{"lsn":4,"x":5}`]; c == nil || c["unreadable"] != nil {
		t.Errorf("the value with a raw CR between tokens is not the JSON it is: %s", raw)
	}
	if c := values[`{"lsn":6}`]; c == nil || c["time"] != nil {
		t.Errorf("the record without a timestamp does not say so (time null): %s", raw)
	}
	for _, stored := range []string{"{\"lsn\":\"\x1b[31m\"}", "{\"lsn\":\"\xff\"}", "{\"lsn\":\"\xfe\"}"} {
		var found map[string]any
		for _, c := range h.Commits {
			if _, ok := c["value"].(string); ok && c["value_base64"] != nil && decodeB64(t, c["value_base64"].(string)) == stored {
				found = c
			}
		}
		if found == nil || found["unreadable"] == nil {
			t.Errorf("%q is not shown as bytes the worker cannot read (value_base64, unreadable): %s", stored, raw)
		}
	}
	if !strings.Contains(raw, `"value":"{\"lsn\":\"\\xff\"}"`) || !strings.Contains(raw, `"value":"{\"lsn\":\"\\xfe\"}"`) {
		t.Errorf("bytes that are not UTF-8 are not shown as \\xff and \\xfe:\n%s", raw)
	}
}

func decodeB64(t *testing.T, s string) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A rewind's plan says a commit has no timestamp rather than dating it 1969.
func TestRewindSaysACommitHasNoTimestamp(t *testing.T) {
	addr := offsetsBroker(t)
	key := `["pg",{"server":"db"}]`
	commitAt(t, addr, "connect-offsets", key, `{"lsn":1}`, time.UnixMilli(-1))
	commitAt(t, addr, "connect-offsets", key, `{"lsn":2}`, time.Date(2026, 11, 29, 2, 0, 0, 0, time.UTC))
	out, errs, code := koff(t, withAudit(t, "set", "pg", "-b", addr, "--to-datetime", "2026-11-29T01:00:00Z", "--dry-run")...)
	if code != 0 || strings.Contains(out, "1969") || !strings.Contains(out, `{"lsn":1}, committed without a timestamp (CreateTime, connect-offsets/`) {
		t.Errorf("exit %d %s:\n%s", code, errs, out)
	}
}
