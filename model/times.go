package model

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// One rule for every time koff shows and reads, so that a time copied from
// any screen or output means the same instant when pasted back: koff shows
// times in UTC, to the millisecond, with the zone named
// ("2026-12-05 03:41:07.123 UTC"), and reads a time typed without a zone
// as UTC. A zone may be given (Z, UTC, +01:00, or an abbreviation of the
// reader's own zone, as koff's echoes show it); relative times count back
// from now. ParseTime is the one reader, TimeText the one writer.

// TimeLayout is the form of a time on every screen and in every text
// output (JSON keeps RFC 3339, TimeArg).
const TimeLayout = "2006-01-02 15:04:05.000 MST"

// ClockSkew is how far ahead of this machine's clock a time read may be:
// a time copied from a broker's record whose clock runs slightly ahead is
// still "now", a time further ahead is refused.
const ClockSkew = time.Minute

// TimeText is t as koff shows it: "2026-12-05 03:41:07.123 UTC".
func TimeText(t time.Time) string { return t.UTC().Format(TimeLayout) }

// TimeArg is t as koff writes it into a command line or JSON: RFC 3339 in
// UTC, exact, one shell word ("2026-12-05T03:41:07.123Z").
func TimeArg(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// TimeIn is t in loc in TimeLayout, the zone by its abbreviation
// ("2026-12-04 22:41:07.123 EST"), or by its offset for a zone whose
// abbreviation is only numbers ("2026-12-05 00:41:07.123 -03:00"): both
// read back as the same instant.
func TimeIn(t time.Time, loc *time.Location) string {
	t = t.In(loc)
	if name, _ := t.Zone(); !letters(name) {
		return t.Format("2006-01-02 15:04:05.000 -07:00")
	}
	return t.Format(TimeLayout)
}

// TimeEcho says which instant koff understood: in UTC, in the reader's
// zone when that is another, and how long ago —
// "2026-12-05 03:41:07.123 UTC (2026-12-04 22:41:07.123 EST, 5m ago)".
func TimeEcho(t, now time.Time, loc *time.Location) string {
	s := TimeText(t) + " ("
	if l := TimeIn(t, loc); l != TimeText(t) {
		s += l + ", "
	}
	return s + Ago(now, t) + ")"
}

// Ago is how long before now t was, in its largest unit: "just now",
// "42s ago", "5m ago", "3h ago", "4d ago" ("never" for no time).
func Ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < time.Second:
		return "just now" // includes producer clocks slightly ahead of ours
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd ago", int(d/(24*time.Hour)))
	}
}

// TimeSyntax is the one-line reminder of what ParseTime reads.
const TimeSyntax = "give 2026-12-05 03:41:07 (UTC when no zone is given), 2026-12-05T03:41:07-05:00, 2026-12-05, now, now-2h, -30m, 2h or PT1H (ago)"

// ParseTime reads a time as every koff input takes it (--since, --until,
// --to-datetime, the dashboard's time fields):
//
//   - a date and time, as RFC 3339 or as koff shows it: 2026-12-05T03:41:07Z,
//     2026-12-05 03:41:07.123 UTC, 2026-12-05 03:41 (seconds, fraction, the
//     T and the zone may be left out; without a zone it is UTC), or a day,
//     2026-12-05 (its midnight, UTC). A zone is Z, UTC, GMT, an offset
//     (+01:00, -0500, +01), or an abbreviation of loc, the reader's zone
//     (EST or EDT in New York: each names its own offset, so the hour a
//     clock change repeats is told apart);
//   - a time back from now: now, now-2h, -30m, 2h, 1h30m, 1d (24 hours),
//     1w, PT1H or P1DT12H (ISO 8601), 5m ago, just now.
//
// It refuses a time more than ClockSkew after now (koff reads what was
// committed, never what will be) and one before 1970 (Kafka's timestamps
// begin there; -1 and -2 mean "latest" and "earliest" to a broker).
func ParseTime(s string, now time.Time, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	var t time.Time
	var err error
	if m := absoluteTime.FindStringSubmatch(s); m != nil {
		t, err = absolute(m, s, loc)
	} else {
		t, err = relative(s, now)
	}
	if err != nil {
		return time.Time{}, err
	}
	if t.Before(time.Unix(0, 0)) {
		return time.Time{}, fmt.Errorf("%s is before 1970-01-01 00:00:00 UTC, where Kafka's record timestamps begin", TimeText(t))
	}
	if ahead := t.Sub(now); ahead > ClockSkew {
		return time.Time{}, fmt.Errorf("%s is %s in the future: give a time up to now", TimeText(t), Span(ahead))
	}
	return t.UTC(), nil
}

// TimeRangeError is the refusal of a since after an until, or "" when
// they are in order (either may be zero: not given).
func TimeRangeError(since, until time.Time) string {
	if since.IsZero() || until.IsZero() || !since.After(until) {
		return ""
	}
	return fmt.Sprintf("--since %s is after --until %s: nothing can be between them", TimeText(since), TimeText(until))
}

var absoluteTime = regexp.MustCompile(`^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(.*)$`)

func absolute(m []string, s string, loc *time.Location) (time.Time, error) {
	num := func(i int) int {
		n, _ := strconv.Atoi(m[i])
		return n
	}
	y, mo, d, h, mi, sec := num(1), num(2), num(3), num(4), num(5), num(6)
	ns := 0
	if m[7] != "" {
		ns, _ = strconv.Atoi((m[7] + "00000000")[:9])
	}
	bad := func(why string) (time.Time, error) {
		return time.Time{}, fmt.Errorf("%q is not a time: %s", s, why)
	}
	switch {
	case mo < 1 || mo > 12:
		return bad("there is no month " + m[2])
	case d < 1 || d > daysIn(y, mo):
		return bad(fmt.Sprintf("%s has no day %d", time.Month(mo), d))
	case h > 23 || mi > 59 || sec > 59:
		return bad("hours go to 23, minutes and seconds to 59")
	}
	zone := m[8]
	if i := strings.IndexByte(zone, '('); i >= 0 && strings.HasSuffix(zone, ")") {
		zone = strings.TrimSpace(zone[:i]) // a whole echo: "… UTC (… EST, 5m ago)"
	}
	if o := goZone.FindStringSubmatch(zone); o != nil {
		zone = o[1] // Go's time.String: "+0000 UTC"
	}
	switch z := strings.ToUpper(zone); {
	case z == "", z == "Z", z == "UTC", z == "GMT":
		return time.Date(y, time.Month(mo), d, h, mi, sec, ns, time.UTC), nil
	case offsetZone.MatchString(z):
		o := offsetZone.FindStringSubmatch(z)
		oh, _ := strconv.Atoi(o[2])
		om, _ := strconv.Atoi(o[3])
		if oh > 18 || om > 59 {
			return bad("an offset from UTC is at most 18:00")
		}
		off := oh*3600 + om*60
		if o[1] == "-" {
			off = -off
		}
		return time.Date(y, time.Month(mo), d, h, mi, sec, ns, time.FixedZone(z, off)), nil
	case letters(z) && len(z) <= 6:
		// The reader's zone knows its abbreviations' offsets; any other
		// abbreviation is ambiguous (CST is three zones), so it is refused.
		text := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d %s", y, mo, d, h, mi, sec, z)
		if t, err := time.ParseInLocation("2006-01-02 15:04:05 MST", text, loc); err == nil && t.Location() == loc {
			return t.Add(time.Duration(ns)), nil
		}
		return bad(fmt.Sprintf("%s is not UTC nor an abbreviation of this machine's zone (%s): give an offset such as -05:00", zone, zoneName(loc)))
	}
	return bad(fmt.Sprintf("%q is not a zone: give Z, UTC or an offset such as -05:00", zone))
}

var goZone = regexp.MustCompile(`^([+-]\d{2}:?\d{2})\s+(?:[A-Za-z]{2,6}|[+-]\d{2,4})$`)

var offsetZone = regexp.MustCompile(`^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$`)

func daysIn(y, mo int) int { return time.Date(y, time.Month(mo)+1, 0, 0, 0, 0, 0, time.UTC).Day() }

func letters(s string) bool {
	for _, r := range s {
		if (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') {
			return false
		}
	}
	return s != ""
}

func zoneName(loc *time.Location) string {
	if n := loc.String(); n != "Local" {
		return n
	}
	name, _ := time.Now().In(loc).Zone()
	return name
}

// relative reads a time back from now: [now][-|+]DURATION[ ago].
func relative(s string, now time.Time) (time.Time, error) {
	bad := fmt.Errorf("%q is not a time: %s", s, TimeSyntax)
	r := strings.ToLower(s)
	if r == "now" || r == "just now" {
		return now, nil
	}
	fromNow := strings.HasPrefix(r, "now")
	r = strings.TrimSpace(strings.TrimPrefix(r, "now"))
	sign := byte('-')
	if r != "" && (r[0] == '-' || r[0] == '+') {
		sign, r = r[0], strings.TrimSpace(r[1:])
	} else if fromNow {
		return time.Time{}, bad // "now 2h": before or after?
	}
	if rest, ago := strings.CutSuffix(r, "ago"); ago {
		if sign == '+' {
			return time.Time{}, bad
		}
		r = strings.TrimSpace(rest)
	}
	d, err := parseSpan(r)
	if errors.Is(err, errMonths) {
		return time.Time{}, fmt.Errorf("%q: months and years have no fixed length; give days (P30D, 30d)", s)
	}
	if err != nil {
		return time.Time{}, bad
	}
	// From the millisecond Kafka's timestamps count in: a relative time
	// names the same commits however many nanoseconds the clock has.
	now = now.Truncate(time.Millisecond)
	if sign == '+' {
		return now.Add(d), nil
	}
	return now.Add(-d), nil
}

var (
	errMonths   = errors.New("months")
	isoCalendar = regexp.MustCompile(`^p(\d+[ym])+`)
	isoSpan     = regexp.MustCompile(`^p(?:(\d+)w)?(?:(\d+)d)?(?:t(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:[.,]\d{1,9})?)s)?)?$`)
	goSpan      = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*(milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w)\s*`)
)

// parseSpan reads a positive duration, lower case: 1h30m, 90s, 2d, 1w,
// 1.5h, or ISO 8601's PnWnDTnHnMnS.
func parseSpan(r string) (time.Duration, error) {
	var total float64
	if strings.HasPrefix(r, "p") {
		m := isoSpan.FindStringSubmatch(r)
		if m == nil || strings.HasSuffix(r, "t") || r == "p" {
			if isoCalendar.MatchString(r) {
				return 0, errMonths
			}
			return 0, errors.New("not ISO 8601")
		}
		for i, unit := range []time.Duration{7 * 24 * time.Hour, 24 * time.Hour, time.Hour, time.Minute, time.Second} {
			if m[i+1] != "" {
				n, _ := strconv.ParseFloat(strings.Replace(m[i+1], ",", ".", 1), 64)
				total += n * float64(unit)
			}
		}
	} else {
		parts := goSpan.FindAllStringSubmatchIndex(r, -1)
		end := 0
		for _, p := range parts {
			if p[0] != end {
				return 0, errors.New("not a duration")
			}
			end = p[1]
			n, _ := strconv.ParseFloat(r[p[2]:p[3]], 64)
			total += n * float64(spanUnit(r[p[4]:p[5]]))
		}
		if len(parts) == 0 || end != len(r) {
			return 0, errors.New("not a duration")
		}
	}
	if total >= math.MaxInt64/2 {
		return 0, errors.New("too long")
	}
	return time.Duration(total), nil
}

func spanUnit(u string) time.Duration {
	switch {
	case u == "ms" || strings.HasPrefix(u, "milli"):
		return time.Millisecond
	case strings.HasPrefix(u, "s"):
		return time.Second
	case strings.HasPrefix(u, "m"):
		return time.Minute
	case strings.HasPrefix(u, "h"):
		return time.Hour
	case strings.HasPrefix(u, "d"):
		return 24 * time.Hour
	}
	return 7 * 24 * time.Hour
}

// Span is a duration as the echoes say it: "2h", "1d 3h", "45s".
func Span(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	s := int64(d / time.Second)
	units := []struct {
		n    int64
		name string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}}
	for i, u := range units[:len(units)-1] {
		if s >= u.n {
			major, minor := s/u.n, (s%u.n)/units[i+1].n
			if minor == 0 {
				return fmt.Sprintf("%d%s", major, u.name)
			}
			return fmt.Sprintf("%d%s %d%s", major, u.name, minor, units[i+1].name)
		}
	}
	return fmt.Sprintf("%ds", s)
}
