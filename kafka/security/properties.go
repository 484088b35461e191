package security

import (
	"fmt"
	"strings"
)

// Property is one key=value of a Java properties file, with the line its
// logical line starts on (for error messages).
type Property struct {
	Key, Value string
	Line       int
}

// PropertyError is a mistake on one line of a properties file.
type PropertyError struct {
	Line int
	Key  string // the key concerned, when known
	Msg  string
}

func (e *PropertyError) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("line %d: %s: %s", e.Line, e.Key, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// ParseProperties reads text the way java.util.Properties.load does, so a
// client.properties that works with Kafka's own tools means the same here:
// "key=value", "key: value" or "key value"; '#' and '!' comment lines;
// a line ending in an odd number of backslashes continues on the next one
// (whose leading whitespace is dropped); escapes \t \n \r \f \uXXXX, and a
// backslash before any other character stands for that character. Unlike
// Java, which reads ISO-8859-1, the text is taken as UTF-8: that is what an
// operator's editor writes. Later duplicates win, as in Java.
func ParseProperties(text string) ([]Property, error) {
	var out []Property
	lines := naturalLines(text)
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := strings.TrimLeft(lines[i], propSpace)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue // comment lines never continue, as in Java
		}
		for continues(line) && i+1 < len(lines) {
			i++
			line = line[:len(line)-1] + strings.TrimLeft(lines[i], propSpace)
		}
		if continues(line) {
			line = line[:len(line)-1] // a backslash at the very end is dropped
		}
		rawKey, rawValue := splitKeyValue(line)
		key, err := unescapeProperty(rawKey)
		if err != nil {
			return nil, &PropertyError{Line: start, Msg: err.Error()}
		}
		value, err := unescapeProperty(rawValue)
		if err != nil {
			return nil, &PropertyError{Line: start, Key: key, Msg: err.Error()}
		}
		out = append(out, Property{Key: key, Value: value, Line: start})
	}
	return out, nil
}

// propSpace is Java's whitespace in properties files (not newlines: those
// end lines).
const propSpace = " \t\f"

// naturalLines splits on \n, \r and \r\n, as Java's LineReader does.
func naturalLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	return strings.Split(text, "\n")
}

// continues reports an odd number of trailing backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitKeyValue cuts a logical line (leading whitespace already gone) at
// the first unescaped '=', ':' or whitespace; whitespace and at most one
// '=' or ':' after the key are skipped. Escapes are still raw.
func splitKeyValue(line string) (key, value string) {
	end, valueStart, sep := len(line), len(line), false
	escaped := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if !escaped && (c == '=' || c == ':') {
			end, valueStart, sep = i, i+1, true
			break
		}
		if !escaped && strings.IndexByte(propSpace, c) >= 0 {
			end, valueStart = i, i+1
			break
		}
		escaped = c == '\\' && !escaped
	}
	for valueStart < len(line) {
		c := line[valueStart]
		if strings.IndexByte(propSpace, c) < 0 {
			if sep || (c != '=' && c != ':') {
				break
			}
			sep = true
		}
		valueStart++
	}
	return line[:end], line[valueStart:]
}

// unescapeProperty is Java's loadConvert.
func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	rs := []rune(s)
	out := make([]rune, 0, len(rs))
	for i := 0; i < len(rs); i++ {
		if rs[i] != '\\' || i+1 == len(rs) {
			out = append(out, rs[i])
			continue
		}
		i++
		switch rs[i] {
		case 't':
			out = append(out, '\t')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 'f':
			out = append(out, '\f')
		case 'u':
			r, ok := hex4(rs[i+1:])
			if !ok {
				return "", fmt.Errorf(`malformed \uXXXX escape (want four hex digits)`)
			}
			out = append(out, r)
			i += 4
		default:
			out = append(out, rs[i])
		}
	}
	return string(joinSurrogates(out)), nil
}

// hex4 reads the four hex digits of a \u escape.
func hex4(rs []rune) (rune, bool) {
	if len(rs) < 4 {
		return 0, false
	}
	var r rune
	for _, h := range rs[:4] {
		d := hexDigit(h)
		if d < 0 {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

func hexDigit(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	}
	return -1
}

// joinSurrogates turns a UTF-16 surrogate pair written as two \u escapes
// (Java strings are UTF-16, so that is how characters beyond the BMP are
// escaped) into the one character it encodes.
func joinSurrogates(rs []rune) []rune {
	out := rs[:0]
	for i := 0; i < len(rs); i++ {
		if rs[i] >= 0xD800 && rs[i] < 0xDC00 && i+1 < len(rs) && rs[i+1] >= 0xDC00 && rs[i+1] < 0xE000 {
			out = append(out, 0x10000+(rs[i]-0xD800)<<10+(rs[i+1]-0xDC00))
			i++
			continue
		}
		out = append(out, rs[i])
	}
	return out
}
