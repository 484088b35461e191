package store

import (
	"encoding/binary"
	"math/bits"
)

// plainMaxFields bounds the fields of the plain form: names are compared
// pairwise.
const plainMaxFields = 16

// plainOffset reports whether raw is an offset in the plain form nearly
// every worker writes: one compact JSON object, ASCII, of distinct field
// names without escapes, whose values are strings without escapes,
// integers a Java long holds (no leading zero, not -0), true, false or
// null. For such bytes everything ParseOffset, JavaReadsDiffer and
// AppendJackson would say is known without parsing: the task reads them as
// an offset, Java reads every number as written, and the compact JSON is
// raw itself. Every record's value is classified on ingestion and every
// shown row renders its value, so this is the hot path; anything else
// takes the full Jackson reading.
func plainOffset[T string | []byte](raw T) bool { return plainObject(raw, nil) }

// plainSpans are where the fields of a plain object are: each name's
// bytes (without quotes) and each whole "name":value, n of them.
type plainSpans struct {
	n             int
	names, fields [plainMaxFields][2]int32
}

// plainObject is plainOffset, noting where the fields are in spans when it
// is not nil.
func plainObject[T string | []byte](raw T, spans *plainSpans) bool {
	if len(raw) < 2 || raw[0] != '{' {
		return false
	}
	if spans == nil {
		var sp plainSpans
		spans = &sp
	}
	spans.n = 0
	if raw[1] == '}' {
		return len(raw) == 2
	}
	n, i := 0, 1
	for {
		// "name"
		if i >= len(raw) || raw[i] != '"' {
			return false
		}
		end := plainString(raw, i)
		if end < 0 || n == plainMaxFields {
			return false
		}
		name := raw[i+1 : end-1]
		for _, m := range spans.names[:n] {
			if string(raw[m[0]:m[1]]) == string(name) {
				return false // a repeated name: Jackson keeps the last value
			}
		}
		start := i
		i = end
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		i++
		if i >= len(raw) {
			return false
		}
		switch c := raw[i]; {
		case c == '"':
			if i = plainString(raw, i); i < 0 {
				return false
			}
		case c == '-' || c >= '0' && c <= '9':
			if i = plainInteger(raw, i); i < 0 {
				return false
			}
		case c == 't':
			if i = plainWord(raw, i, "true"); i < 0 {
				return false
			}
		case c == 'f':
			if i = plainWord(raw, i, "false"); i < 0 {
				return false
			}
		case c == 'n':
			if i = plainWord(raw, i, "null"); i < 0 {
				return false
			}
		default:
			return false
		}
		if i >= len(raw) {
			return false
		}
		spans.names[n] = [2]int32{int32(start + 1), int32(end - 1)}
		spans.fields[n] = [2]int32{int32(start), int32(i)}
		n++
		spans.n = n
		switch raw[i] {
		case ',':
			i++
		case '}':
			return i+1 == len(raw)
		default:
			return false
		}
	}
}

// plainString returns the index after a string starting at raw[i] == '"'
// that holds only printable ASCII other than '\\', or -1.
func plainString[T string | []byte](raw T, i int) int {
	j := i + 1
	// 8 bytes at a time while none is out of the plain range: a byte
	// below 0x20, at or above 0x7f, a quote or a backslash.
	// The lowest byte flagged is the first out of the range (a borrow
	// or carry only flags bytes above one flagged itself): the string
	// ends there, at a quote, or is not plain.
	for j+8 <= len(raw) {
		x := binary.LittleEndian.Uint64([]byte(raw[j : j+8]))
		if m := ((x-lo8*0x20)&^x | x | zeroByte(x^lo8*0x7f) | zeroByte(x^lo8*'"') | zeroByte(x^lo8*'\\')) & hi8; m != 0 {
			j += bits.TrailingZeros64(m) / 8
			if raw[j] == '"' {
				return j + 1
			}
			return -1
		}
		j += 8
	}
	for j < len(raw) && plainChars[raw[j]] {
		j++
	}
	if j < len(raw) && raw[j] == '"' {
		return j + 1
	}
	return -1
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// zeroByte has the high bit of some byte set (among others, above it)
// if a byte of x is zero, and none otherwise.
func zeroByte(x uint64) uint64 { return (x - lo8) &^ x }

// allDigits reports whether the 8 bytes of x are all '0' to '9': the
// lowest byte that is not sets its high bit in one of the two sums (none
// below it carries or borrows).
func allDigits(x uint64) bool { return ((x-lo8*'0')|(x+lo8*(0x7f-'9')))&hi8 == 0 }

// plainChars are the bytes a plain string holds: printable ASCII but the
// quote and the backslash.
var plainChars = func() (t [256]bool) {
	for c := 0x20; c < 0x7F; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainInteger returns the index after an integer within a Java long's
// range with no leading zero (0 itself is fine, -0 is not), or -1.
func plainInteger[T string | []byte](raw T, i int) int {
	neg := raw[i] == '-'
	if neg {
		i++
	}
	start := i
	for i+8 <= len(raw) && allDigits(binary.LittleEndian.Uint64([]byte(raw[i:i+8]))) {
		i += 8
	}
	for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
		i++
	}
	digits := i - start
	max := "9223372036854775807" // Long.MAX_VALUE; Long.MIN_VALUE's digits end in 8
	if neg {
		max = "9223372036854775808"
	}
	switch {
	case digits == 0 || digits > 19:
		return -1
	case digits == 19 && string(raw[start:i]) > max:
		return -1
	case raw[start] == '0' && (digits > 1 || neg):
		return -1
	case i < len(raw) && (raw[i] == '.' || raw[i] == 'e' || raw[i] == 'E'):
		return -1
	}
	return i
}

func plainWord[T string | []byte](raw T, i int, w string) int {
	if len(raw)-i < len(w) || string(raw[i:i+len(w)]) != w {
		return -1
	}
	return i + len(w)
}

// PlainOffset is plainOffset for callers outside the Store: raw is an
// offset every task reads, known without parsing it (koff history's hot
// path).
func PlainOffset(raw []byte) bool { return plainOffset(raw) }
