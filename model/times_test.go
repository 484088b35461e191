package model

import (
	"strings"
	"testing"
	"time"
)

func newYork(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no zone database: %v", err)
	}
	return loc
}

// Every form an operator types or copies from koff reads as the instant
// it names, the same in New York as in UTC: a time without a zone is UTC,
// because every koff screen shows UTC.
func TestParseTimeReadsEveryFormAsOneInstant(t *testing.T) {
	ny := newYork(t)
	now := time.Date(2026, 12, 5, 3, 41, 7, 123456789, time.UTC)
	ms := now.Truncate(time.Millisecond)
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	cases := []struct {
		in   string
		want time.Time
	}{
		// As koff shows it, and its parts.
		{"2026-12-05 03:41:07.123 UTC", utc(2026, 12, 5, 3, 41, 7, 123e6)},
		{"2026-12-05 03:41:07.123", utc(2026, 12, 5, 3, 41, 7, 123e6)},
		{"2026-12-05 03:41:07", utc(2026, 12, 5, 3, 41, 7, 0)},
		{"2026-12-05 03:41", utc(2026, 12, 5, 3, 41, 0, 0)},
		{"2026-12-05", utc(2026, 12, 5, 0, 0, 0, 0)},
		{"2026-12-05 UTC", utc(2026, 12, 5, 0, 0, 0, 0)},
		{"  2026-12-05 03:41:07.123 UTC  ", utc(2026, 12, 5, 3, 41, 7, 123e6)},
		// RFC 3339 and kafka-consumer-groups' form.
		{"2026-12-05T03:41:07.123Z", utc(2026, 12, 5, 3, 41, 7, 123e6)},
		{"2026-12-05T03:41:07.123456789Z", utc(2026, 12, 5, 3, 41, 7, 123456789)},
		{"2026-12-05t03:41:07z", utc(2026, 12, 5, 3, 41, 7, 0)},
		{"2026-12-05T03:41:07.123", utc(2026, 12, 5, 3, 41, 7, 123e6)},
		{"2026-12-05T03:41", utc(2026, 12, 5, 3, 41, 0, 0)},
		{"2026-12-04T22:41:07-05:00", utc(2026, 12, 5, 3, 41, 7, 0)},
		{"2026-12-04T22:41:07.5-0500", utc(2026, 12, 5, 3, 41, 7, 5e8)},
		{"2026-12-05T04:41:07+01", utc(2026, 12, 5, 3, 41, 7, 0)},
		{"2026-12-05 09:11:07 +05:30", utc(2026, 12, 5, 3, 41, 7, 0)},
		{"2026-12-05 03:41:07,250 GMT", utc(2026, 12, 5, 3, 41, 7, 250e6)},
		{"2026-12-05 03:41:07 UTC+00:00", utc(2026, 12, 5, 3, 41, 7, 0)},
		// A whole echo, and Go's time.String.
		{"2026-12-05 03:41:07.123 UTC (2026-12-04 22:41:07.123 EST, 5m ago)", utc(2026, 12, 5, 3, 41, 7, 123e6)},
		{"2026-12-04 22:41:07.123 -0500 EST", utc(2026, 12, 5, 3, 41, 7, 123e6)},
		{"2026-12-05 03:41:07.123 +0000 UTC", utc(2026, 12, 5, 3, 41, 7, 123e6)},
		// The reader's own zone by its abbreviation, as the echoes show it.
		{"2026-12-04 22:41:07.123 EST", utc(2026, 12, 5, 3, 41, 7, 123e6)},
		{"2026-07-04 12:00:00 EDT", utc(2026, 7, 4, 16, 0, 0, 0)},
		// DST edges in New York: 1:30 happens twice on 1 November 2026,
		// the abbreviation tells which; 2:30 on 8 March 2026 is named by
		// the offset it gives.
		{"2026-11-01 01:30:00 EDT", utc(2026, 11, 1, 5, 30, 0, 0)},
		{"2026-11-01 01:30:00 EST", utc(2026, 11, 1, 6, 30, 0, 0)},
		{"2026-03-08 02:30:00 EST", utc(2026, 3, 8, 7, 30, 0, 0)},
		{"2026-03-08 03:30:00 EDT", utc(2026, 3, 8, 7, 30, 0, 0)},
		{"2026-11-01 01:30:00", utc(2026, 11, 1, 1, 30, 0, 0)}, // no zone: UTC, DST or not
		// Back from now.
		{"now", now},
		{"NOW", now},
		{"just now", now},
		{"now-2h", ms.Add(-2 * time.Hour)},
		{"now - 90s", ms.Add(-90 * time.Second)},
		{"-30m", ms.Add(-30 * time.Minute)},
		{"30m", ms.Add(-30 * time.Minute)},
		{"2h", ms.Add(-2 * time.Hour)},
		{"1h30m", ms.Add(-90 * time.Minute)},
		{"1h 30m", ms.Add(-90 * time.Minute)},
		{"1.5h", ms.Add(-90 * time.Minute)},
		{"2d", ms.Add(-48 * time.Hour)},
		{"1w", ms.Add(-7 * 24 * time.Hour)},
		{"250ms", ms.Add(-250 * time.Millisecond)},
		{"5m ago", ms.Add(-5 * time.Minute)},
		{"3 hours ago", ms.Add(-3 * time.Hour)},
		{"PT1H", ms.Add(-time.Hour)},
		{"pt30m", ms.Add(-30 * time.Minute)},
		{"-PT1H", ms.Add(-time.Hour)},
		{"P1DT12H", ms.Add(-36 * time.Hour)},
		{"PT0.5S", ms.Add(-500 * time.Millisecond)},
		{"P1W", ms.Add(-7 * 24 * time.Hour)},
		{"now-PT1H", ms.Add(-time.Hour)},
		// A clock slightly ahead (a broker's, a colleague's) is still now.
		{"2026-12-05 03:41:37 UTC", utc(2026, 12, 5, 3, 41, 37, 0)},
		{"+30s", ms.Add(30 * time.Second)},
	}
	for _, loc := range []*time.Location{time.UTC, ny} {
		for _, c := range cases {
			if loc == time.UTC && (strings.HasSuffix(c.in, "EST") || strings.HasSuffix(c.in, "EDT")) {
				continue
			}
			got, err := ParseTime(c.in, now.In(loc), loc)
			if err != nil {
				t.Errorf("%s: ParseTime(%q): %v", loc, c.in, err)
				continue
			}
			if !got.Equal(c.want) {
				t.Errorf("%s: ParseTime(%q) = %s, want %s", loc, c.in, TimeText(got), TimeText(c.want))
			}
		}
	}
}

// What koff refuses, it refuses in one line that says why.
func TestParseTimeRefusesWithOneLine(t *testing.T) {
	ny := newYork(t)
	now := time.Date(2026, 12, 5, 3, 41, 7, 0, time.UTC)
	cases := []struct{ in, says string }{
		{"", "is not a time"},
		{"yesterday", "is not a time"},
		{"12/05/2026", "is not a time"},
		{"1733370067123", "is not a time"}, // a number with no unit
		{"2026-13-01", "no month 13"},
		{"2026-02-30", "February has no day 30"},
		{"2026-12-05 24:00", "hours go to 23"},
		{"2026-12-05 03:41:07 CET", "CET is not UTC nor an abbreviation of this machine's zone (America/New_York)"},
		{"2026-12-05 03:41:07 CST", "give an offset such as -05:00"},
		{"2026-12-05 03:41:07 +25:00", "at most 18:00"},
		{"2026-12-05 03:41:07 banana!", "is not a zone"},
		{"2026-12-06 00:00", "is 20h 18m in the future: give a time up to now"},
		{"now+2h", "2026-12-05 05:41:07.000 UTC is 2h in the future"},
		{"+PT2M", "in the future"},
		{"2h from now", "is not a time"},
		{"now 2h", "is not a time"},
		{"P1M", "months and years have no fixed length"},
		{"P1Y", "months and years have no fixed length"},
		{"PT", "is not a time"},
		{"1969-12-31 23:59:59.999", "before 1970-01-01 00:00:00 UTC"},
		{"99999999h", "is not a time"},
	}
	for _, c := range cases {
		_, err := ParseTime(c.in, now.In(ny), ny)
		if err == nil {
			t.Errorf("ParseTime(%q) read a time, want refused with %q", c.in, c.says)
			continue
		}
		if !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseTime(%q) = %q, want one line with %q", c.in, err, c.says)
		}
	}
}

// Every form koff prints a time in reads back as the same instant, in
// UTC and in New York, across both clock changes of the year.
func TestTimesKoffPrintsReadBackAsTheSameInstant(t *testing.T) {
	ny := newYork(t)
	now := time.Date(2026, 12, 5, 3, 41, 7, 0, time.UTC)
	var instants []time.Time
	for _, edge := range []time.Time{
		time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC),  // 02:00 EST becomes 03:00 EDT
		time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC), // 02:00 EDT becomes 01:00 EST
	} {
		for d := -90 * time.Minute; d <= 90*time.Minute; d += 15*time.Minute + 7*time.Millisecond {
			instants = append(instants, edge.Add(d))
		}
	}
	for _, at := range instants {
		for _, loc := range []*time.Location{time.UTC, ny, time.FixedZone("-03", -3*3600)} {
			for _, shown := range []string{TimeText(at), TimeArg(at), TimeIn(at, loc), TimeEcho(at, now, loc), at.In(loc).String()} {
				got, err := ParseTime(shown, now, loc)
				if err != nil || !got.Equal(at) {
					t.Errorf("%s: %q read back as %s (%v), want %s", loc, shown, TimeText(got), err, TimeText(at))
				}
			}
		}
	}
}

func TestTimeEchoSaysUTCTheReadersZoneAndHowLongAgo(t *testing.T) {
	ny := newYork(t)
	now := time.Date(2026, 12, 5, 3, 41, 7, 0, time.UTC)
	at := time.Date(2026, 12, 5, 3, 36, 6, 123e6, time.UTC)
	if got, want := TimeEcho(at, now, ny), "2026-12-05 03:36:06.123 UTC (2026-12-04 22:36:06.123 EST, 5m ago)"; got != want {
		t.Errorf("TimeEcho in New York = %q, want %q", got, want)
	}
	if got, want := TimeEcho(at, now, time.UTC), "2026-12-05 03:36:06.123 UTC (5m ago)"; got != want {
		t.Errorf("TimeEcho in UTC = %q, want %q", got, want)
	}
	if got, want := TimeIn(at, time.FixedZone("-03", -3*3600)), "2026-12-05 00:36:06.123 -03:00"; got != want {
		t.Errorf("TimeIn a numeric zone = %q, want %q", got, want)
	}
}

func TestTimeRangeError(t *testing.T) {
	a := time.Date(2026, 12, 5, 3, 0, 0, 0, time.UTC)
	b := a.Add(time.Hour)
	if s := TimeRangeError(b, a); !strings.Contains(s, "--since 2026-12-05 04:00:00.000 UTC is after --until 2026-12-05 03:00:00.000 UTC") {
		t.Errorf("since after until: %q", s)
	}
	for _, ok := range [][2]time.Time{{a, b}, {a, a}, {{}, a}, {b, {}}} {
		if s := TimeRangeError(ok[0], ok[1]); s != "" {
			t.Errorf("TimeRangeError(%v, %v) = %q, want none", ok[0], ok[1], s)
		}
	}
}
