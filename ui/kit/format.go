package kit

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"koff/model"
	"koff/model/java"
)

// Age is how long ago t was, in the largest whole unit: "4s ago", "3m ago"
// (model.Ago, which the command line's echoes say too). It is computed from
// the injected clock, never time.Now.
func Age(now, t time.Time) string { return model.Ago(now, t) }

// count formats an integer with thousands separators: 12,345.
func Count[T ~int | ~int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// plural returns "1 thing" or "2 things".
func Plural(n int, one, many string) string {
	if n == 1 {
		return Count(n) + " " + one
	}
	return Count(n) + " " + many
}

var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// sparkline draws one cell per bucket, scaled to the largest bucket; an
// empty bucket is a blank, so an idle connector shows no bars at all.
func Sparkline(buckets []int) string {
	peak := 0
	for _, v := range buckets {
		peak = max(peak, v)
	}
	var b strings.Builder
	for _, v := range buckets {
		if v <= 0 || peak == 0 {
			b.WriteByte(' ')
			continue
		}
		i := (v*len(sparkLevels) - 1) / peak
		b.WriteRune(sparkLevels[min(i, len(sparkLevels)-1)])
	}
	return b.String()
}

// fitRight truncates s to w cells with "…", or pads it on the left to w
// cells: numbers line up on their last digit.
func FitRight(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = ansi.Truncate(s, w, "…")
	if pad := w - ansi.StringWidth(s); pad > 0 {
		s = strings.Repeat(" ", pad) + s
	}
	return s
}

// truncate cuts s to w cells, ending in "…" when it had to cut.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}

// truncateMiddle cuts s to w cells by replacing its middle with "…": the
// end of a source partition map (the table, the file) is what tells rows
// apart, and the start says which fields there are.
func TruncateMiddle(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw <= w {
		return s
	}
	if w < 8 {
		return Truncate(s, w)
	}
	head := (w - 1) / 3
	tail := w - 1 - head
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, sw-tail, "")
}

// escapeBytes shows record bytes exactly, escaping what does not print
// (model.Preview's rules) and never truncating.
func escapeBytes(raw []byte) string {
	return model.Preview(raw, 10*len(raw)+1)
}

// wrapLines hard-wraps each line of s to w cells: the detail view shows keys
// and values in full rather than cutting them, but must not overflow.
func WrapLines(s string, w int) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if w <= 0 || ansi.StringWidth(line) <= w {
			out = append(out, line)
			continue
		}
		out = append(out, strings.Split(ansi.Hardwrap(line, w, true), "\n")...)
	}
	return out
}

// numberDelta is b−a for two JSON numbers, computed exactly: offsets are
// often 64-bit (LSNs, SCNs) and must never pass through float64. ok is false
// when either is not a number.
func numberDelta(a, b json.Number) (string, bool) {
	x, ok1 := new(big.Rat).SetString(string(a))
	y, ok2 := new(big.Rat).SetString(string(b))
	if !ok1 || !ok2 {
		return "", false
	}
	d := new(big.Rat).Sub(y, x)
	var s string
	if d.IsInt() {
		s = d.Num().String()
	} else {
		s = d.FloatString(max(decimals(a), decimals(b)))
	}
	if d.Sign() > 0 {
		s = "+" + s
	}
	return s, true
}

// decimals is the number of digits after the point in a JSON number
// (ignoring any exponent), at least 1 and at most 18.
func decimals(n json.Number) int {
	s := strings.ToLower(string(n))
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		s = s[:i]
	}
	d := 1
	if i := strings.IndexByte(s, '.'); i >= 0 {
		d = len(s) - i - 1
	}
	return min(max(d, 1), 18)
}

// offsetChanges describes how an offset map changed from prev to cur, field
// by field: "+5" for numbers, "changed" for anything else, in cur's field
// order. A field that vanished or appeared is named as such.
func OffsetChanges(prev, cur java.Object) []string {
	var out []string
	for _, f := range cur {
		f.Name = Clean(f.Name) // field names come from the topic too
		old, had := prev.Get(f.Name)
		if !had {
			out = append(out, f.Name+" new")
			continue
		}
		if a, ok := old.(json.Number); ok {
			if b, ok := f.Value.(json.Number); ok {
				if d, ok := numberDelta(a, b); ok {
					if d != "0" {
						out = append(out, f.Name+" "+d)
					}
					continue
				}
			}
		}
		if string(java.AppendJackson(nil, old)) != string(java.AppendJackson(nil, f.Value)) {
			out = append(out, f.Name+" changed")
		}
	}
	for _, f := range prev {
		if _, ok := cur.Get(f.Name); !ok {
			out = append(out, f.Name+" removed")
		}
	}
	return out
}

// naturalLess orders strings with digit runs compared as numbers, so the
// offset {"pos":9} sorts before {"pos":10}, whatever the number of digits.
func NaturalLess(a, b string) bool {
	// Skip the common prefix, backed up to the start of a digit run it
	// ends in: up to there both strings read the same. Rows sorted by
	// partition map share long prefixes, and a sort compares a lot.
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	for p > 0 && a[p-1] >= '0' && a[p-1] <= '9' {
		p--
	}
	return naturalLessFrom(a[p:], b[p:])
}

// naturalLessFrom is NaturalLess compared from the first byte.
func naturalLessFrom(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na := strings.TrimLeft(a[:da], "0")
			nb := strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// cellWidth is ansi.StringWidth, without its grapheme segmentation for
// printable ASCII (one cell a byte): measuring every row of a big table
// on each refresh is mostly that.
func CellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7E {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// naturalKey returns a string whose byte order is naturalLess's order:
// each digit run becomes '0', its length without leading zeros as four
// bytes, and those digits. '0' compares with any other byte as every
// digit does, so a run meets a non-digit as in naturalLess, and two runs
// meet length first. Sorting by keys made once per row is far cheaper
// than comparing with naturalLess n·log n times.
func NaturalKey(s string) string {
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		d := digitRun(s[i:])
		if d == 0 {
			b = append(b, s[i])
			i++
			continue
		}
		n := strings.TrimLeft(s[i:i+d], "0")
		b = append(b, '0', byte(len(n)>>24), byte(len(n)>>16), byte(len(n)>>8), byte(len(n)))
		b = append(b, n...)
		i += d
	}
	return string(b)
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// reloadShown is how long the header says that the tailer began again from
// scratch.
const ReloadShown = 5 * time.Minute

// spread puts left and right on one line of width w, cutting left first.
func Spread(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if rw == 0 {
		return ansi.Truncate(left, w, "…")
	}
	left = ansi.Truncate(left, max(w-rw-2, 0), "…")
	gap := max(w-ansi.StringWidth(left)-rw, 1)
	return ansi.Truncate(left+strings.Repeat(" ", gap)+right, w, "")
}

func FailedTasks(c model.ConnectorState) int {
	n := 0
	for _, t := range c.Tasks {
		if t.State == "FAILED" {
			n++
		}
	}
	return n
}

// short is a binding with a shorter description, for the one-line help.
func Short(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// clipWhatWidth is how much of a source partition the status bar names.
const ClipWhatWidth = 40

// WrapAtSpaces wraps text behind indent to width w at spaces only, never
// inside a word: a time or an edit id (whose hyphens ansi's word wrap
// breaks at) stays whole on its line, unless it is wider than the line.
func WrapAtSpaces(text string, w int, indent string) []string {
	room := max(w-ansi.StringWidth(indent), 8)
	var out []string
	line, width := "", 0
	for _, word := range strings.Split(text, " ") {
		ww := ansi.StringWidth(word)
		switch {
		case width == 0:
			line, width = word, ww
		case width+1+ww <= room:
			line, width = line+" "+word, width+1+ww
		default:
			out = append(out, line)
			line, width = word, ww
		}
		for width > room { // a word wider than the line: cut it where it must
			out = append(out, ansi.Cut(line, 0, room))
			line = ansi.Cut(line, room, width)
			width = ansi.StringWidth(line)
		}
	}
	out = append(out, line)
	for i := range out {
		out[i] = indent + out[i]
	}
	return out
}
