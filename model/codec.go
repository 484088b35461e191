package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"koff/model/java"
)

// Key is a parsed offsets-topic key: ["<connector>",{<source partition>}].
type Key struct {
	Connector string
	// Partition is nil when the key's second element is JSON null.
	Partition java.Object
	// PartitionRaw is the second element in compact form: as Jackson writes
	// the parsed map, numbers with the digits stored (leading zeros
	// dropped). "null" for a null partition.
	PartitionRaw []byte
}

// Reasons shown in the "unparseable records" view.
var (
	errKeyEmpty     = errors.New("key is empty")
	errKeyNotArray  = errors.New("key is not a JSON array")
	errKeyConnector = errors.New("first element is not a string")
	errKeyPartition = errors.New("second element is not an object or null")
)

// ParseKey parses an offsets-topic key as the worker does
// (OffsetUtils.processPartitionKey, reading with JsonConverter's Jackson
// mapper; see readJackson): a JSON array of a string and an object or
// null. Whitespace, leading zeros and text after the array are accepted
// as Jackson accepts them, even though such a key never matches the bytes
// a task looks up (see TaskKeyForm).
func ParseKey(raw []byte) (Key, error) {
	if len(raw) == 0 {
		return Key{}, errKeyEmpty
	}
	v, err := java.ReadJackson(raw)
	if err == java.ErrMissing {
		return Key{}, errKeyEmpty
	}
	if err != nil {
		return Key{}, fmt.Errorf("key is not JSON: %v", err)
	}
	arr, ok := v.([]any)
	if !ok {
		return Key{}, errKeyNotArray
	}
	if len(arr) != 2 {
		return Key{}, fmt.Errorf("key array has %d elements, want 2", len(arr))
	}
	var k Key
	if k.Connector, ok = arr[0].(string); !ok {
		return Key{}, errKeyConnector
	}
	switch p := arr[1].(type) {
	case nil:
	case java.Object:
		k.Partition = p
	default:
		return Key{}, errKeyPartition
	}
	k.PartitionRaw = java.AppendJackson(nil, k.Partition)
	return k, nil
}

// TaskKeyForm reports whether raw are the bytes a task's own partition map
// serialises to (OffsetStorageReaderImpl.offsets looks its offset up under
// exactly those bytes): compact, Jackson's escaping, numbers as Java
// prints the Long or Double it holds, fields in the stored order (the
// order of the task's map, which koff cannot see).
func TaskKeyForm(k Key, raw []byte) bool {
	var p java.Object
	if k.Partition != nil {
		p = java.JavaNumbers(k.Partition).(java.Object)
	}
	return bytes.Equal(raw, java.EncodeKey(k.Connector, p))
}

// ParseOffset parses an offsets-topic value as a task reads it
// (OffsetStorageReaderImpl.offsets: JsonConverter.toConnectData, then
// OffsetUtils.validateFormat). A nil value is a tombstone and gives
// (nil, nil). Every other value the task cannot use gives an error saying
// why: ErrNullOffset for a zero-byte, all-whitespace or literal null
// value (the task reads null), otherwise the converter's or validator's
// complaint, which the worker logs before giving the task no offset.
func ParseOffset(raw []byte) (java.Object, error) {
	if raw == nil {
		return nil, nil
	}
	v, err := java.ReadJackson(raw)
	switch {
	case err == java.ErrMissing:
		return nil, ErrNullOffset
	case err != nil:
		return nil, fmt.Errorf("not JSON the converter reads: %v", err)
	case v == nil:
		return nil, ErrNullOffset
	}
	o, ok := v.(java.Object)
	if !ok {
		return nil, errors.New("not a JSON object: Offsets must be specified as a Map")
	}
	if err := ValidateOffset(o); err != nil {
		return nil, err
	}
	return o, nil
}

// ErrNullOffset: a value that is not a tombstone but reads as null (zero
// bytes, whitespace or the literal null): the task gets no offset.
var ErrNullOffset = errors.New("the value reads as null (zero bytes, whitespace or the literal null): the task gets no offset")

// ValidateOffset applies Connect's OffsetUtils.validateFormat to a value
// (or partition) map, with its messages: values must be primitives, i.e.
// strings, numbers, booleans, bytes or null. A nil map is valid (a
// tombstone).
func ValidateOffset(o java.Object) error {
	for _, f := range o {
		var typ string
		switch v := f.Value.(type) {
		case nil, string, json.Number, bool, []byte,
			int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
			float32, float64:
			continue
		case java.Object, map[string]any:
			typ = "MAP"
		case []any:
			typ = "ARRAY"
		default:
			typ = fmt.Sprintf("%T", v)
		}
		//lint:ignore ST1005 Connect's exact message, shown to users as Connect would say it
		return fmt.Errorf("Offsets may only contain primitive types as values, but field %s contains %s", f.Name, typ)
	}
	return nil
}

// Preview renders arbitrary record bytes on one line of at most n terminal
// cells: printable UTF-8 as is; \n, \r, \t as such; other controls, DEL and
// invalid bytes as \xNN; other non-printable runes (U+2028, bidi controls…)
// as \uNNNN or \UNNNNNNNN. When it does not fit it ends with "…".
func Preview(raw []byte, n int) string {
	if n <= 0 {
		return ""
	}
	var b []byte
	width := 0
	cut := 0 // length of b while it still fits in n-1 cells, before "…"
	for i := 0; i < len(raw); {
		r, size := utf8.DecodeRune(raw[i:])
		var piece []byte
		switch {
		case r == utf8.RuneError && size <= 1:
			piece = fmt.Appendf(nil, `\x%02x`, raw[i])
		case r == '\n':
			piece = []byte(`\n`)
		case r == '\r':
			piece = []byte(`\r`)
		case r == '\t':
			piece = []byte(`\t`)
		case r < 0x20 || r == 0x7F:
			piece = fmt.Appendf(nil, `\x%02x`, r)
		case !unicode.IsGraphic(r):
			if r > 0xFFFF {
				piece = fmt.Appendf(nil, `\U%08x`, r)
			} else {
				piece = fmt.Appendf(nil, `\u%04x`, r)
			}
		}
		w := len(piece) // escapes are ASCII
		if piece == nil {
			piece = raw[i : i+size]
			w = runeWidth(r)
		}
		i += size
		if width+w <= n-1 {
			cut = len(b) + len(piece)
		}
		width += w
		if width > n {
			return string(b[:cut]) + "…"
		}
		b = append(b, piece...)
	}
	return string(b)
}

// runeWidth approximates the terminal cells of a printable rune: 0 for
// combining marks, 2 for East Asian wide/fullwidth and emoji, else 1. The
// model package uses only the standard library, so this is a small table
// rather than the full Unicode width data.
func runeWidth(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me) {
		return 0
	}
	for _, rg := range wideRanges {
		if r < rg[0] {
			return 1
		}
		if r <= rg[1] {
			return 2
		}
	}
	return 1
}

var wideRanges = [...][2]rune{
	{0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC},
	{0x23F0, 0x23F0}, {0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615},
	{0x2648, 0x2653}, {0x267F, 0x267F}, {0x2693, 0x2693}, {0x26A1, 0x26A1},
	{0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5}, {0x26CE, 0x26CE},
	{0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5},
	{0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B},
	{0x2728, 0x2728}, {0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755},
	{0x2757, 0x2757}, {0x2795, 0x2797}, {0x27B0, 0x27B0}, {0x27BF, 0x27BF},
	{0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55}, {0x2E80, 0x303E},
	{0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF},
	{0xA960, 0xA97F}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19},
	{0xFE30, 0xFE6F}, {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6}, {0x16FE0, 0x16FE4},
	{0x17000, 0x18CFF}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
	{0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F251}, {0x1F300, 0x1F320},
	{0x1F32D, 0x1F335}, {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA},
	{0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4}, {0x1F3F8, 0x1F43E},
	{0x1F440, 0x1F440}, {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E},
	{0x1F550, 0x1F567}, {0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4},
	{0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC}, {0x1F6D0, 0x1F6D2},
	{0x1F6D5, 0x1F6D7}, {0x1F6DC, 0x1F6DF}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC},
	{0x1F7E0, 0x1F7EB}, {0x1F7F0, 0x1F7F0}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945},
	{0x1F947, 0x1F9FF}, {0x1FA70, 0x1FAFF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
}

// SameOffset reports whether two stored values hold the same offset for a
// task: both deleted, both readable and equal by SameValue, or both
// unreadable with the same bytes. Layout (whitespace, field order, number
// forms such as 1.50 for 1.5) never makes two values differ.
func SameOffset(a, b []byte) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	va, errA := ParseOffset(a)
	vb, errB := ParseOffset(b)
	if errA != nil || errB != nil {
		return errA != nil && errB != nil && bytes.Equal(a, b)
	}
	return java.SameValue(va, vb)
}
