package kit

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"koff/model"
	"koff/model/java"
)

// t0 is the fixed "now" of these tests.
var t0 = time.Date(2025, 11, 29, 18, 10, 0, 0, time.UTC)

// Deltas in the update history are exact however large the offsets: an
// operator comparing LSNs must not see rounding.
func TestNumberDeltaIsExact(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"9007199254740993", "9007199254740995", "+2"}, // above 2^53: float64 would say +2 or +4 by luck
		{"18446744073709551600", "18446744073709551605", "+5"},
		{"100", "90", "-10"},
		{"7", "7", "0"},
		{"1.5", "2.25", "+0.75"},
		{"1e3", "1001", "+1"},
		{"-9223372036854775808", "9223372036854775807", "+18446744073709551615"},
	} {
		got, ok := numberDelta(json.Number(c.a), json.Number(c.b))
		if !ok || got != c.want {
			t.Errorf("delta %s → %s = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

func TestOffsetChangesNameEachField(t *testing.T) {
	parse := func(s string) java.Object {
		o, err := model.ParseOffset([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	got := OffsetChanges(
		parse(`{"file":"binlog.1","pos":9007199254740993,"snapshot":true,"old":1}`),
		parse(`{"file":"binlog.2","pos":9007199254741000,"snapshot":true,"row":1}`))
	want := []string{"file changed", "pos +7", "row new", "old removed"}
	if len(got) != len(want) {
		t.Fatalf("changes = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("change %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestAgeReadsNaturally(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{-3 * time.Second, "just now"},
		{400 * time.Millisecond, "just now"},
		{4 * time.Second, "4s ago"},
		{59 * time.Second, "59s ago"},
		{3 * time.Minute, "3m ago"},
		{5 * time.Hour, "5h ago"},
		{72 * time.Hour, "3d ago"},
	} {
		if got := Age(t0, t0.Add(-c.d)); got != c.want {
			t.Errorf("age(%v) = %q, want %q", c.d, got, c.want)
		}
	}
	if got := Age(t0, time.Time{}); got != "never" {
		t.Errorf("zero time reads %q", got)
	}
}

func TestSparklineScalesToPeak(t *testing.T) {
	if got := Sparkline([]int{0, 1, 4, 8, 0}); got != " ▁▄█ " {
		t.Errorf("sparkline = %q", got)
	}
	if got := Sparkline([]int{0, 0}); got != "  " {
		t.Errorf("idle sparkline = %q, want blanks", got)
	}
}

func TestNaturalOrder(t *testing.T) {
	ordered := []string{`{"pos":9}`, `{"pos":10}`, `{"pos":100}`, `{"pot":1}`}
	for i := 0; i+1 < len(ordered); i++ {
		if !NaturalLess(ordered[i], ordered[i+1]) || NaturalLess(ordered[i+1], ordered[i]) {
			t.Errorf("%s should sort before %s", ordered[i], ordered[i+1])
		}
	}
}

// The end of a source partition map tells rows apart; the middle goes.
func TestTruncateMiddleKeepsBothEnds(t *testing.T) {
	s := `{"protocol":"1","table":"customers"}`
	got := TruncateMiddle(s, 24)
	if ansi.StringWidth(got) != 24 || got[:2] != `{"` || got[len(got)-12:] != `"customers"}` {
		t.Errorf("truncateMiddle = %q", got)
	}
	if TruncateMiddle("short", 24) != "short" {
		t.Error("a string that fits was cut")
	}
}

func TestEscapeBytesShowsUnprintable(t *testing.T) {
	got := escapeBytes([]byte("[\"a\",\x00{\"k\":\"\n\xff\"}]"))
	want := `["a",\x00{"k":"\n\xff"}]`
	if got != want {
		t.Errorf("escapeBytes = %q, want %q", got, want)
	}
}

func TestCountGroupsThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := Count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// A time's hyphens are no place to break it (ansi's word wrap breaks
// there): it moves whole to the next line; a value wider than the line is
// wrapped, every byte of it kept.
func TestWrapAtSpacesKeepsTimesWhole(t *testing.T) {
	got := WrapAtSpaces("stray connect-offsets/7: 1 commit from 2025-11-29T16:10:00.000Z, its first commit", 50, "  ")
	want := []string{"  stray connect-offsets/7: 1 commit from", "  2025-11-29T16:10:00.000Z, its first commit"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
	long := `{"position":` + strings.Repeat("9", 40) + `}`
	lines := WrapAtSpaces(long, 20, "")
	if len(lines) < 3 || strings.Join(lines, "") != long {
		t.Errorf("long value wrapped as %q", lines)
	}
}
