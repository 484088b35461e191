package kit

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"koff/model/java"
)

// jsonValues is a JSON object's values in their order, without field
// names or punctuation: `{"table":"orders","protocol":"1"}` reads
// "orders 1". It is how a narrow column shows a partition or an offset:
// every number whole, so 1000 and 100000 never look alike. ok is false
// for anything but a flat object.
func jsonValues(s string) (string, bool) {
	if vals, ok := plainValues(s); ok {
		return vals, true
	}
	return parsedValues(s)
}

// parsedValues is jsonValues through the parser: for what plainValues
// does not take.
func parsedValues(s string) (string, bool) {
	v, err := java.ParseJSON([]byte(s))
	if err != nil {
		return "", false
	}
	obj, isObj := v.(java.Object)
	if !isObj {
		return "", false
	}
	parts := make([]string, 0, len(obj))
	for _, f := range obj {
		switch x := f.Value.(type) {
		case string:
			parts = append(parts, x)
		case java.Object, []any:
			return "", false
		case nil:
			parts = append(parts, "null")
		default:
			parts = append(parts, fmt.Sprint(x)) // json.Number, bool: as written
		}
	}
	return strings.Join(parts, " "), true
}

// fitJSON shows a partition or offset map in w cells: whole when it fits,
// else its values alone, else those cut in the middle (the end of a
// number and of a table name tell rows apart).
func FitJSON(s string, w int) string {
	full := CleanJSON(s)
	if ansi.StringWidth(full) <= w {
		return full
	}
	if vals, ok := jsonValues(s); ok {
		return TruncateMiddle(Clean(vals), w)
	}
	return TruncateMiddle(full, w)
}

// compactWidth is the width fitJSON needs to show s without cutting it.
func CompactWidth(s string) int {
	if plainCell(s) {
		// Its values are printable ASCII too, and shorter: as wide as
		// they are long, measured without making them.
		if n, ok := plainValuesLen(s); ok {
			return n
		}
	}
	if vals, ok := jsonValues(s); ok {
		return CellWidth(Clean(vals))
	}
	return CellWidth(CleanJSON(s))
}

// plainValues is jsonValues without parsing, for the compact ASCII maps of
// strings without escapes, numbers, booleans and nulls that nearly every
// partition and offset is: measuring a column of 100,000 rows on each
// refresh was mostly parsing. ok is false for anything else.
func plainValues(s string) (string, bool) {
	var b strings.Builder
	if _, ok := walkPlainValues(s, &b); !ok {
		return "", false
	}
	return b.String(), true
}

// plainValuesLen is the length of plainValues(s), without making it.
func plainValuesLen(s string) (int, bool) { return walkPlainValues(s, nil) }

// valuesOut is where walkPlainValues puts the values: a builder, or
// (nil) only their length.
type valuesOut struct {
	b *strings.Builder
	n int
}

func (o *valuesOut) WriteString(s string) {
	o.n += len(s)
	if o.b != nil {
		o.b.WriteString(s)
	}
}

// walkPlainValues is plainValues, writing the values to b (nil: nowhere)
// and returning their length.
func walkPlainValues(s string, sb *strings.Builder) (int, bool) {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return 0, false
	}
	if s == "{}" {
		return 0, true
	}
	b := &valuesOut{b: sb}
	i := 1
	for {
		// "name":
		end := plainStringEnd(s, i)
		if end < 0 || end >= len(s) || s[end] != ':' {
			return 0, false
		}
		i = end + 1
		if i >= len(s) {
			return 0, false
		}
		if b.n > 0 {
			b.WriteString(" ")
		}
		start := i
		switch c := s[i]; {
		case c == '"':
			if i = plainStringEnd(s, i); i < 0 {
				return 0, false
			}
			b.WriteString(s[start+1 : i-1])
		case c == '-' || c >= '0' && c <= '9':
			if i = numberEnd(s, i); i < 0 {
				return 0, false
			}
			b.WriteString(s[start:i])
		default:
			w := ""
			for _, lit := range []string{"true", "false", "null"} {
				if strings.HasPrefix(s[i:], lit) {
					w = lit
				}
			}
			if w == "" {
				return 0, false
			}
			i += len(w)
			b.WriteString(w)
		}
		if i >= len(s) {
			return 0, false
		}
		switch s[i] {
		case ',':
			i++
		case '}':
			if i != len(s)-1 {
				return 0, false
			}
			return b.n, true
		default:
			return 0, false
		}
	}
}

// plainStringEnd returns the index after a string at s[i] of printable
// ASCII without escapes, or -1.
func plainStringEnd(s string, i int) int {
	if i >= len(s) || s[i] != '"' {
		return -1
	}
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '"':
			return j + 1
		case c == '\\' || c < 0x20 || c > 0x7E:
			return -1
		}
	}
	return -1
}

// numberEnd returns the index after a JSON number at s[i], or -1.
func numberEnd(s string, i int) int {
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, n = i+1, n+1
		}
		return n
	}
	if s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return -1
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return -1
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return -1
		}
	}
	return i
}
