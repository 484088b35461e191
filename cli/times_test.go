package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// koffIn runs the command line with TZ set as a shell in that zone has it.
func koffTZ(t *testing.T, tz string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "TZ" {
			return tz
		}
		return ""
	}}
	code := Main(args, env)
	return out.String(), errb.String(), code
}

func needZone(t *testing.T, name string) {
	t.Helper()
	if _, err := time.LoadLocation(name); err != nil {
		t.Skipf("no zone database: %v", err)
	}
}

var historyTimeCol = regexp.MustCompile(`(?m)^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC)\s+connect-offsets/\d+@(\d+)`)

// A time copied from koff history's output and pasted into set
// --to-datetime names the same commit in New York as in UTC, with its
// " UTC" or without (no zone is UTC, as koff prints UTC); the plan says
// the instant it read in UTC and in the reader's zone. Before, a zoneless
// time was New York's: five hours off.
func TestTimeCopiedFromHistoryRewindsToTheSameCommitInEveryZone(t *testing.T) {
	needZone(t, "America/New_York")
	addr := offsetsBroker(t)
	key := `["pg",{"server":"db"}]`
	base := time.Now().Add(-10 * time.Hour).Truncate(time.Second)
	for i, at := range []time.Duration{0, 2*time.Hour + 123*time.Millisecond, 4 * time.Hour, 6*time.Hour + 7*time.Millisecond} {
		commitAt(t, addr, "connect-offsets", key, `{"lsn":`+string(rune('1'+i))+`}`, base.Add(at))
	}
	hist, errs, code := koff(t, "history", "pg", "-b", addr)
	if code != 0 {
		t.Fatalf("history: exit %d: %s", code, errs)
	}
	rows := historyTimeCol.FindAllStringSubmatch(hist, -1)
	if len(rows) != 4 {
		t.Fatalf("want 4 commits with koff's time form, got %d:\n%s", len(rows), hist)
	}
	var copied, place string
	for _, r := range rows {
		if strings.HasSuffix(r[1], ".123 UTC") {
			copied, place = r[1], r[2]
		}
	}
	if copied == "" {
		t.Fatalf("no commit at .123 in:\n%s", hist)
	}
	took := "committed at " + copied + " (CreateTime, connect-offsets/"
	for _, tz := range []string{"", "UTC", "America/New_York", ":America/New_York", "Asia/Kolkata"} {
		for _, typed := range []string{copied, strings.TrimSuffix(copied, " UTC"), strings.Replace(strings.TrimSuffix(copied, " UTC"), " ", "T", 1) + "Z"} {
			out, errs, code := koffTZ(t, tz, "set", "pg", "-b", addr, "--to-datetime", typed, "--dry-run")
			if code != 0 {
				t.Fatalf("TZ=%s set --to-datetime %q: exit %d: %s\n%s", tz, typed, code, errs, out)
			}
			if !strings.Contains(out, `{"lsn":2}, `+took) || !strings.Contains(out, "@"+place+")") {
				t.Errorf("TZ=%s --to-datetime %q did not take the commit at %s (%s):\n%s", tz, typed, copied, place, out)
			}
			if !strings.Contains(out, "Rewind pg to "+copied+" (") {
				t.Errorf("TZ=%s: the plan does not echo %s:\n%s", tz, copied, out)
			}
		}
	}
	// The echo names New York's time too, in a form that reads back.
	out, _, _ := koffTZ(t, "America/New_York", "set", "pg", "-b", addr, "--to-datetime", copied, "--dry-run")
	local := regexp.MustCompile(`Rewind pg to [^(]+ \((\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} E[SD]T), `).FindStringSubmatch(out)
	if local == nil {
		t.Fatalf("the plan does not say the time in New York:\n%s", out)
	}
	again, errs, code := koffTZ(t, "America/New_York", "set", "pg", "-b", addr, "--to-datetime", local[1], "--dry-run")
	if code != 0 || !strings.Contains(again, took) {
		t.Errorf("New York's echo %q read back to another commit: exit %d %s\n%s", local[1], code, errs, again)
	}
	// A relative time: 7 hours ago is between the commits 8 and 6 hours ago.
	out, errs, code = koffTZ(t, "America/New_York", "set", "pg", "-b", addr, "--to-datetime", "now-7h", "--dry-run")
	if code != 0 || !strings.Contains(out, `{"lsn":2}, `+took) {
		t.Errorf("now-7h: exit %d: %s\n%s", code, errs, out)
	}
	// The same copied times narrow koff history, echoed on stderr.
	_, errs, code = koffTZ(t, "America/New_York", "history", "pg", "-b", addr, "--since", copied, "--until", strings.TrimSuffix(copied, " UTC"))
	if code != 0 || !strings.Contains(errs, "koff: commits since "+copied+" (") || !strings.Contains(errs, " EST, ") && !strings.Contains(errs, " EDT, ") {
		t.Errorf("history --since: exit %d, stderr:\n%s", code, errs)
	}
	h := historyJSON(t, "pg", "-b", addr, "--since", copied, "--until", strings.TrimSuffix(copied, " UTC"))
	if n := len(h["commits"].([]any)); n != 1 {
		t.Errorf("--since and --until at one commit's time show %d commits, want that one", n)
	}
}

// A future time and a --since after --until are refused in one line with
// exit 2, before Kafka is read, by every command that reads a time.
func TestFutureTimesAndBackwardRangesAreRefused(t *testing.T) {
	needZone(t, "America/New_York")
	tomorrow := time.Now().Add(24 * time.Hour).UTC().Format("2006-01-02 15:04")
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"set", "pg", "--to-datetime", "now+1h"}, "--to-datetime: "},
		{[]string{"set", "pg", "--to-datetime", tomorrow}, "in the future: give a time up to now"},
		{[]string{"set", "es", "--to-datetime", "+PT2H", "--topic", "logs"}, "in the future"},
		{[]string{"set", "es", "--by-duration", "-PT2H"}, "--by-duration -PT2H is 2h in the future"},
		{[]string{"history", "pg", "--since", tomorrow}, "--since: "},
		{[]string{"history", "pg", "--until", "now+10m"}, "--until: "},
		{[]string{"history", "pg", "--since", "-1h", "--until", "-2h"}, "is after --until"},
		{[]string{"history", "pg", "--since", "2026-11-29 10:00", "--until", "2026-11-29T04:00:00-05:00"}, "--since 2026-11-29 10:00:00.000 UTC is after --until 2026-11-29 09:00:00.000 UTC"},
		{[]string{"set", "pg", "--to-datetime", "2026-11-29 10:00 CET"}, "CET is not UTC nor an abbreviation of this machine's zone (America/New_York)"},
		{[]string{"set", "pg", "--to-datetime", "1969-12-31 23:59:59.999"}, "before 1970-01-01"},
	} {
		// No broker at this address: the refusal comes before any read.
		out, errs, code := koffTZ(t, "America/New_York", append(c.args, "-b", "127.0.0.1:1")...)
		if code != 2 || !strings.Contains(errs, c.says) || strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
			t.Errorf("koff %s: exit %d, stdout %q, stderr %q: want exit 2 and one line with %q", strings.Join(c.args, " "), code, out, errs, c.says)
		}
	}
}

// A sink's --to-datetime follows the same rule: a time without a zone is
// UTC in New York too, and the plan says the instant it read; the
// printed command line pins it in RFC 3339.
func TestSinkToDatetimeReadsNoZoneAsUTCAndEchoesIt(t *testing.T) {
	needZone(t, "America/New_York")
	c := demoCluster(t)
	time.Sleep(1500 * time.Millisecond) // the sink's first commits
	rest := []string{"-b", c.Bootstrap(), "--connect-url", c.ConnectURL()}
	if _, errs, code := koff(t, append([]string{"stop", "es-search"}, rest...)...); code != 0 {
		t.Fatal(errs)
	}
	// Read as New York's, this would be five hours ahead: refused.
	at := time.Now().Add(-30 * time.Second).UTC().Truncate(time.Second)
	typed := at.Format("2006-01-02 15:04:05")
	out, errs, code := koffTZ(t, "America/New_York", append([]string{"set", "es-search", "--to-datetime", typed, "--topic", "logs.app", "--dry-run"}, rest...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	local := at.In(mustZone(t, "America/New_York")).Format("2006-01-02 15:04:05.000 MST")
	for _, want := range []string{
		"Set es-search's committed offsets to each partition's first record at or after " + typed + ".000 UTC (" + local + ", 3",
		"--to-datetime " + at.Format(time.RFC3339),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan lacks %q:\n%s", want, out)
		}
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
