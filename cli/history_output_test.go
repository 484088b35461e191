package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// failingOutput takes limit bytes, then fails as a full disk does.
type failingOutput struct {
	took, limit, after int
}

var errDiskFull = errors.New("no space left on device")

func (f *failingOutput) Write(p []byte) (int, error) {
	if f.took+len(p) > f.limit {
		f.after++
		return 0, errDiskFull
	}
	f.took += len(p)
	return len(p), nil
}

// koff history into an output that fails (a full disk) stops there and
// says so in one line: nothing is written after the failure.
func TestHistoryIntoAFailingOutputSaysSoInOneLine(t *testing.T) {
	addr := offsetsBroker(t)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	key := `["pg",{"server":"db"}]`
	values := make([]string, 20000)
	for i := range values {
		values[i] = fmt.Sprintf(`{"lsn":%d}`, i)
	}
	produceMany(t, addr, 0, key, values, t0)
	out := &failingOutput{limit: 200 << 10}
	var errb bytes.Buffer
	code := Main([]string{"history", "pg", "-b", addr, "-o", "json"}, Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: &errb, Getenv: func(string) string { return "" }})
	if code == 0 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "no space left on device") {
		t.Errorf("exit %d, stderr %q: want one line that says the output failed", code, errb.String())
	}
	if out.after != 1 {
		t.Errorf("%d writes after the first failed: want none", out.after-1)
	}
}

// A commit's time is koff's one time form in text (UTC, to the
// millisecond, the zone named) and RFC 3339 in UTC in JSON.
func TestHistoryTimeIsKoffsTimeInTextAndRFC3339InJSON(t *testing.T) {
	for _, tc := range []struct {
		in         time.Time
		text, json string
	}{
		{time.Date(2026, 11, 29, 2, 3, 4, 5_000_000, time.UTC), "2026-11-29 02:03:04.005 UTC", "2026-11-29T02:03:04.005Z"},
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600)), "1969-12-31 23:00:00.000 UTC", "1969-12-31T23:00:00.000Z"},
		{time.UnixMilli(1796297652877), time.UnixMilli(1796297652877).UTC().Format("2006-01-02 15:04:05.000 UTC"), time.UnixMilli(1796297652877).UTC().Format("2006-01-02T15:04:05.000Z")},
	} {
		if got := historyTime(tc.in); got != tc.text {
			t.Errorf("historyTime(%v) = %s, want %s", tc.in, got, tc.text)
		}
		if got := string(appendHistoryTime(nil, tc.in)); got != tc.json {
			t.Errorf("appendHistoryTime(%v) = %s, want %s", tc.in, got, tc.json)
		}
		for _, text := range []bool{true, false} {
			r := refText{text: text}
			want := tc.json
			if text {
				want = tc.text
			}
			if got := string(r.appendTime(r.appendTime(nil, tc.in)[:0], tc.in)); got != want {
				t.Errorf("refText{text: %v}.appendTime(%v) = %s, want %s", text, tc.in, got, want)
			}
		}
	}
}
