package cli

import "encoding/binary"

// validJSON reports whether b is one JSON value, as json.Valid does, at a
// fraction of its cost: koff history checks every value it writes as
// stored (a million records are a million checks).
func validJSON(b []byte) bool {
	i, ok := jsonValue(b, skipSpace(b, 0), 0)
	return ok && skipSpace(b, i) == len(b)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonValue reads the value at b[i:] and returns the index after it.
func jsonValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > 10000 {
		return i, false
	}
	switch c := b[i]; {
	case c == '{':
		return jsonObject(b, i+1, depth+1)
	case c == '[':
		return jsonArray(b, i+1, depth+1)
	case c == '"':
		return jsonStringBody(b, i+1)
	case c == '-' || c >= '0' && c <= '9':
		return jsonNumber(b, i)
	case c == 't':
		return jsonLiteral(b, i, "true")
	case c == 'f':
		return jsonLiteral(b, i, "false")
	case c == 'n':
		return jsonLiteral(b, i, "null")
	}
	return i, false
}

func jsonLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

func jsonObject(b []byte, i, depth int) (int, bool) {
	i = skipSpace(b, i)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		var ok bool
		if i, ok = jsonStringBody(b, i+1); !ok {
			return i, false
		}
		if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
			return i, false
		}
		if i, ok = jsonValue(b, skipSpace(b, i+1), depth); !ok {
			return i, false
		}
		switch i = skipSpace(b, i); {
		case i >= len(b):
			return i, false
		case b[i] == '}':
			return i + 1, true
		case b[i] != ',':
			return i, false
		}
		i = skipSpace(b, i+1)
	}
}

func jsonArray(b []byte, i, depth int) (int, bool) {
	i = skipSpace(b, i)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = jsonValue(b, i, depth); !ok {
			return i, false
		}
		switch i = skipSpace(b, i); {
		case i >= len(b):
			return i, false
		case b[i] == ']':
			return i + 1, true
		case b[i] != ',':
			return i, false
		}
		i = skipSpace(b, i+1)
	}
}

// jsonStringBody reads a string's body from after its opening quote: no
// control characters, only JSON's escapes. Bytes that are not UTF-8 are
// allowed, as json.Valid allows them (readers take them as U+FFFD).
func jsonStringBody(b []byte, i int) (int, bool) {
	for i+8 <= len(b) && plainString8(binary.LittleEndian.Uint64(b[i:])) {
		i += 8
	}
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		default:
			i++
		}
	}
	return i, false
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// jsonNumber reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func jsonNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i+8 <= len(b) && digits8(binary.LittleEndian.Uint64(b[i:])) {
		i += 8
	}
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// Eight bytes at a time: a million stored values are checked.
const ones, highs = 0x0101010101010101, 0x8080808080808080

// digits8: all eight bytes are ASCII digits. A byte below '0' borrows
// into its high bit, one above '9' carries into it, one from 0x80 has it
// set; a borrow or carry can only spoil the bytes above a byte that
// already fails.
func digits8(w uint64) bool {
	return (w|(w-0x30*ones)|(w+0x46*ones))&highs == 0
}

// plainString8: none of the eight bytes ends the string, escapes, or is
// a control character (bytes from 0x80 are allowed, as jsonStringBody
// allows them).
func plainString8(w uint64) bool {
	q, bs := w^0x22*ones, w^0x5c*ones
	return ((w-0x20*ones)&^w|(q-ones)&^q|(bs-ones)&^bs)&highs == 0
}
