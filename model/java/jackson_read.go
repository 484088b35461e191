package java

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The worker reads offsets-topic keys and values with JsonConverter
// (Apache Kafka 4.1.1, Jackson 2.19.0): JsonDeserializer's ObjectMapper
// with JsonReadFeature.ALLOW_LEADING_ZEROS_FOR_NUMBERS and
// DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS, otherwise Jackson's
// defaults. readJackson reads bytes the way that mapper's readTree does:
//
//   - ByteSourceJsonBootstrapper: a UTF-8 BOM is skipped; UTF-16 and UTF-32
//     (with or without BOM) are detected from the first bytes.
//   - Only space, tab, LF and CR are whitespace; no comments, no NaN, no
//     single quotes, no unquoted names, no leading '+' or '.', no trailing
//     commas.
//   - Leading zeros in numbers are allowed (007 is 7).
//   - ObjectMapper._readTreeAndClose reads the first value only: text after
//     it is ignored (FAIL_ON_TRAILING_TOKENS is off), and empty input is
//     MissingNode, which JsonConverter turns into null.
//   - A repeated field name keeps its first position and its last value.
//   - UTF-8 is decoded as UTF8StreamJsonParser does: it checks lead and
//     continuation bytes but not overlong forms or encoded surrogates.
//   - StreamReadConstraints: numbers of at most 1000 digits, nesting of at
//     most 1000 levels.
//
// Strings come back as Go strings in WTF-8 (a lone UTF-16 surrogate, which
// Java strings can hold, is kept as its 3-byte form; appendJacksonString
// writes it back as \uXXXX). Numbers come back as json.Number holding the
// stored digits with leading zeros dropped, so they are valid JSON text.

const (
	jacksonMaxNumberLen = 1000 // StreamReadConstraints.DEFAULT_MAX_NUM_LEN
	jacksonMaxDepth     = 1000 // StreamReadConstraints.DEFAULT_MAX_DEPTH
)

// errMissing: nothing but whitespace (MissingNode).
var ErrMissing = errors.New("empty")

type jacksonReader struct {
	b     []byte
	i     int
	depth int
}

// readJackson reads the first JSON value of raw as the worker's Jackson
// mapper does. It returns errMissing for empty or all-whitespace input.
func ReadJackson(raw []byte) (any, error) {
	b, err := jacksonDecode(raw)
	if err != nil {
		return nil, err
	}
	r := &jacksonReader{b: b}
	r.skipSpace()
	if r.i == len(r.b) {
		return nil, ErrMissing
	}
	c := r.b[r.i]
	v, err := r.value()
	if err != nil {
		return nil, err
	}
	// UTF8StreamJsonParser._verifyRootSpace: a root-level number must be
	// followed by whitespace or the end.
	if c == '-' || IsDigit(c) {
		if r.i < len(r.b) && !IsJacksonSpace(r.b[r.i]) {
			return nil, fmt.Errorf("unexpected character %s after a root-level number", quoteByte(r.b[r.i]))
		}
	}
	return v, nil
}

// jacksonDecode turns UTF-16 or UTF-32 input into UTF-8, and drops a
// UTF-8 BOM (ByteSourceJsonBootstrapper.detectEncoding).
func jacksonDecode(raw []byte) ([]byte, error) {
	if len(raw) >= 4 {
		quad := binary.BigEndian.Uint32(raw)
		switch {
		case quad == 0x0000FEFF:
			return decodeUTF32(raw[4:], binary.BigEndian)
		case quad == 0xFFFE0000:
			return decodeUTF32(raw[4:], binary.LittleEndian)
		case quad == 0x0000FFFE || quad == 0xFEFF0000:
			return nil, errors.New("unsupported UCS-4 byte order")
		case quad>>16 == 0xFEFF:
			return decodeUTF16(raw[2:], binary.BigEndian), nil
		case quad>>16 == 0xFFFE:
			return decodeUTF16(raw[2:], binary.LittleEndian), nil
		case quad>>8 == 0xEFBBBF:
			return raw[3:], nil
		case quad>>8 == 0:
			return decodeUTF32(raw, binary.BigEndian)
		case quad&0x00FFFFFF == 0:
			return decodeUTF32(raw, binary.LittleEndian)
		case quad&^0x00FF0000 == 0 || quad&^0x0000FF00 == 0:
			return nil, errors.New("unsupported UCS-4 byte order")
		}
		return utf16Guess(raw, quad>>16), nil
	}
	if len(raw) >= 2 {
		return utf16Guess(raw, uint32(raw[0])<<8|uint32(raw[1])), nil
	}
	return raw, nil
}

func utf16Guess(raw []byte, i16 uint32) []byte {
	switch {
	case i16&0xFF00 == 0:
		return decodeUTF16(raw, binary.BigEndian)
	case i16&0x00FF == 0:
		return decodeUTF16(raw, binary.LittleEndian)
	}
	return raw
}

func decodeUTF16(b []byte, order binary.ByteOrder) []byte {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, order.Uint16(b[i:]))
	}
	// Java's UTF-16 decoder replaces malformed input with U+FFFD.
	return []byte(string(utf16.Decode(u)))
}

func decodeUTF32(b []byte, order binary.ByteOrder) ([]byte, error) {
	out := make([]byte, 0, len(b)/4)
	for i := 0; i+3 < len(b); i += 4 {
		r := order.Uint32(b[i:])
		if r > 0x10FFFF {
			return nil, fmt.Errorf("invalid UTF-32 character 0x%X", r)
		}
		out = utf8.AppendRune(out, rune(r))
	}
	return out, nil
}

func IsJacksonSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (r *jacksonReader) skipSpace() {
	for r.i < len(r.b) && IsJacksonSpace(r.b[r.i]) {
		r.i++
	}
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7F {
		return strconv.Quote(string(c))
	}
	return fmt.Sprintf("0x%02x", c)
}

func (r *jacksonReader) errEOF() error { return errors.New("unexpected end of input") }

func (r *jacksonReader) value() (any, error) {
	if r.i >= len(r.b) {
		return nil, r.errEOF()
	}
	switch c := r.b[r.i]; {
	case c == '{':
		return r.object()
	case c == '[':
		return r.array()
	case c == '"':
		return r.str()
	case c == '-' || IsDigit(c):
		return r.number()
	case c == 't':
		return true, r.literal("true")
	case c == 'f':
		return false, r.literal("false")
	case c == 'n':
		return nil, r.literal("null")
	default:
		return nil, fmt.Errorf("unexpected character %s: expected a JSON value", quoteByte(c))
	}
}

// literal matches true, false or null; like Jackson's _checkMatchEnd it
// refuses a token that runs on into identifier characters (nullx, true5).
func (r *jacksonReader) literal(word string) error {
	end := r.i
	for end < len(r.b) && isIdentByte(r.b[end]) {
		end++
	}
	if string(r.b[r.i:end]) != word {
		return fmt.Errorf("unrecognized token %q", truncateToken(r.b[r.i:max(end, r.i+1)]))
	}
	r.i = end
	return nil
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || IsDigit(c) || c == '_' || c == '$' || c >= 0x80
}

func truncateToken(b []byte) string {
	if len(b) > 20 {
		b = b[:20]
	}
	return string(b)
}

func (r *jacksonReader) enter() error {
	r.depth++
	if r.depth > jacksonMaxDepth {
		return fmt.Errorf("nesting deeper than %d levels (Jackson's StreamReadConstraints)", jacksonMaxDepth)
	}
	return nil
}

func (r *jacksonReader) object() (any, error) {
	if err := r.enter(); err != nil {
		return nil, err
	}
	r.i++ // {
	o := Object{}
	r.skipSpace()
	if r.i < len(r.b) && r.b[r.i] == '}' {
		r.i++
		r.depth--
		return o, nil
	}
	for {
		r.skipSpace()
		if r.i >= len(r.b) {
			return nil, r.errEOF()
		}
		if r.b[r.i] != '"' {
			return nil, fmt.Errorf("unexpected character %s: expected a double-quoted field name", quoteByte(r.b[r.i]))
		}
		name, err := r.str()
		if err != nil {
			return nil, err
		}
		r.skipSpace()
		if r.i >= len(r.b) {
			return nil, r.errEOF()
		}
		if r.b[r.i] != ':' {
			return nil, fmt.Errorf("unexpected character %s: expected ':' after a field name", quoteByte(r.b[r.i]))
		}
		r.i++
		r.skipSpace()
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		o = o.Put(name.(string), v)
		r.skipSpace()
		if r.i >= len(r.b) {
			return nil, r.errEOF()
		}
		switch r.b[r.i] {
		case ',':
			r.i++
		case '}':
			r.i++
			r.depth--
			return o, nil
		default:
			return nil, fmt.Errorf("unexpected character %s: expected ',' or '}'", quoteByte(r.b[r.i]))
		}
	}
}

// put sets a field as Jackson's ObjectNode does: a repeated name keeps its
// first position and takes the new value.
func (o Object) Put(name string, v any) Object {
	for i := range o {
		if o[i].Name == name {
			o[i].Value = v
			return o
		}
	}
	return append(o, Field{Name: name, Value: v})
}

func (r *jacksonReader) array() (any, error) {
	if err := r.enter(); err != nil {
		return nil, err
	}
	r.i++ // [
	a := []any{}
	r.skipSpace()
	if r.i < len(r.b) && r.b[r.i] == ']' {
		r.i++
		r.depth--
		return a, nil
	}
	for {
		r.skipSpace()
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		r.skipSpace()
		if r.i >= len(r.b) {
			return nil, r.errEOF()
		}
		switch r.b[r.i] {
		case ',':
			r.i++
		case ']':
			r.i++
			r.depth--
			return a, nil
		default:
			return nil, fmt.Errorf("unexpected character %s: expected ',' or ']'", quoteByte(r.b[r.i]))
		}
	}
}

// str reads a string token into WTF-8.
func (r *jacksonReader) str() (any, error) {
	r.i++ // "
	start := r.i
	// Fast path: plain ASCII without escapes.
	for r.i < len(r.b) {
		c := r.b[r.i]
		if c == '"' {
			s := string(r.b[start:r.i])
			r.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
		r.i++
	}
	out := append([]byte(nil), r.b[start:r.i]...)
	var pendingHigh rune = -1 // a \uD8xx escape waiting for its low half
	flush := func() {
		if pendingHigh >= 0 {
			out = appendWTF8(out, pendingHigh)
			pendingHigh = -1
		}
	}
	for {
		if r.i >= len(r.b) {
			return nil, r.errEOF()
		}
		c := r.b[r.i]
		switch {
		case c == '"':
			flush()
			r.i++
			return string(out), nil
		case c < 0x20:
			return nil, fmt.Errorf("unescaped control character 0x%02x in a string", c)
		case c == '\\':
			if r.i+1 >= len(r.b) {
				return nil, r.errEOF()
			}
			e := r.b[r.i+1]
			r.i += 2
			var short byte
			switch e {
			case '"', '\\', '/':
				short = e
			case 'b':
				short = '\b'
			case 'f':
				short = '\f'
			case 'n':
				short = '\n'
			case 'r':
				short = '\r'
			case 't':
				short = '\t'
			case 'u':
				if r.i+4 > len(r.b) {
					return nil, r.errEOF()
				}
				u, err := strconv.ParseUint(string(r.b[r.i:r.i+4]), 16, 16)
				if err != nil || !isHex4(r.b[r.i:r.i+4]) {
					return nil, fmt.Errorf("invalid \\u escape %q", r.b[r.i:r.i+4])
				}
				r.i += 4
				cu := rune(u)
				switch {
				case cu >= 0xDC00 && cu <= 0xDFFF && pendingHigh >= 0:
					out = utf8.AppendRune(out, utf16.DecodeRune(pendingHigh, cu))
					pendingHigh = -1
				case cu >= 0xD800 && cu <= 0xDBFF:
					flush()
					pendingHigh = cu
				default:
					flush()
					out = appendWTF8(out, cu)
				}
				continue
			default:
				return nil, fmt.Errorf("unrecognized character escape %s", quoteByte(e))
			}
			flush()
			out = append(out, short)
		case c < 0x80:
			flush()
			out = append(out, c)
			r.i++
		default:
			flush()
			cu, n, err := jacksonUTF8(r.b[r.i:])
			if err != nil {
				return nil, err
			}
			for _, u := range cu {
				out = appendWTF8(out, u)
			}
			r.i += n
		}
	}
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(IsDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// jacksonUTF8 decodes one multi-byte sequence as UTF8StreamJsonParser
// does: the lead byte gives the length (0xC0–0xDF two, 0xE0–0xEF three,
// 0xF0–0xF7 four), continuation bytes must be 10xxxxxx, and nothing else is
// checked. It returns the UTF-16 code units Java ends up with.
func jacksonUTF8(b []byte) ([]rune, int, error) {
	c := b[0]
	var n int
	var v rune
	switch {
	case c >= 0xC0 && c <= 0xDF:
		n, v = 2, rune(c&0x1F)
	case c >= 0xE0 && c <= 0xEF:
		n, v = 3, rune(c&0x0F)
	case c >= 0xF0 && c <= 0xF7:
		n, v = 4, rune(c&0x07)
	default:
		return nil, 0, fmt.Errorf("invalid UTF-8 start byte 0x%02x", c)
	}
	if len(b) < n {
		return nil, 0, errors.New("unexpected end of input in a UTF-8 sequence")
	}
	for _, m := range b[1:n] {
		if m&0xC0 != 0x80 {
			return nil, 0, fmt.Errorf("invalid UTF-8 middle byte 0x%02x", m)
		}
		v = v<<6 | rune(m&0x3F)
	}
	if n < 4 {
		return []rune{v}, n, nil
	}
	// _decodeUtf8_4 returns c - 0x10000 split into two surrogates, without
	// a range check.
	v -= 0x10000
	return []rune{0xD800 + (v>>10)&0xFFFF, 0xDC00 + v&0x3FF}, n, nil
}

// appendWTF8 appends a UTF-16 code unit or a whole rune; a lone surrogate
// is written in its 3-byte form so it survives to the writer.
func appendWTF8(b []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(b, 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F)
	}
	if r < 0 || r > utf8.MaxRune {
		return utf8.AppendRune(b, utf8.RuneError)
	}
	return utf8.AppendRune(b, r)
}

// number reads a number token. Leading zeros are dropped (Jackson's
// _verifyNoLeadingZeroes keeps one only before a non-digit).
func (r *jacksonReader) number() (any, error) {
	var out []byte
	if r.b[r.i] == '-' {
		out = append(out, '-')
		r.i++
		if r.i >= len(r.b) {
			return nil, r.errEOF()
		}
		if !IsDigit(r.b[r.i]) {
			return nil, fmt.Errorf("unexpected character %s after '-': expected a digit", quoteByte(r.b[r.i]))
		}
	}
	for r.i+1 < len(r.b) && r.b[r.i] == '0' && IsDigit(r.b[r.i+1]) {
		r.i++
	}
	start := r.i
	for r.i < len(r.b) && IsDigit(r.b[r.i]) {
		r.i++
	}
	intLen := r.i - start
	out = append(out, r.b[start:r.i]...)
	fracLen, expLen := 0, 0
	if r.i < len(r.b) && r.b[r.i] == '.' {
		r.i++
		s := r.i
		for r.i < len(r.b) && IsDigit(r.b[r.i]) {
			r.i++
		}
		if fracLen = r.i - s; fracLen == 0 {
			return nil, errors.New("decimal point not followed by a digit")
		}
		out = append(out, '.')
		out = append(out, r.b[s:r.i]...)
	}
	if r.i < len(r.b) && (r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		out = append(out, r.b[r.i])
		r.i++
		if r.i < len(r.b) && (r.b[r.i] == '+' || r.b[r.i] == '-') {
			out = append(out, r.b[r.i])
			r.i++
		}
		s := r.i
		for r.i < len(r.b) && IsDigit(r.b[r.i]) {
			r.i++
		}
		if expLen = r.i - s; expLen == 0 {
			return nil, errors.New("exponent indicator not followed by a digit")
		}
		out = append(out, r.b[s:r.i]...)
	}
	if intLen+fracLen+expLen > jacksonMaxNumberLen {
		return nil, fmt.Errorf("number longer than %d digits (Jackson's StreamReadConstraints)", jacksonMaxNumberLen)
	}
	n := json.Number(out)
	if fracLen > 0 || expLen > 0 {
		// USE_BIG_DECIMAL_FOR_FLOATS: the text must be a BigDecimal.
		if err := bigDecimalFits(string(out)); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// bigDecimalFits applies java.math.BigDecimal(String)'s limits: the
// exponent and the resulting scale must fit in an int.
func bigDecimalFits(s string) error {
	e := -1
	for i := 0; i < len(s); i++ {
		if s[i] == 'e' || s[i] == 'E' {
			e = i
			break
		}
	}
	if e < 0 {
		return nil
	}
	mant := s[:e]
	frac := 0
	for i := 0; i < len(mant); i++ {
		if mant[i] == '.' {
			frac = len(mant) - i - 1
		}
	}
	digits := s[e+1:]
	neg := false
	if digits != "" && (digits[0] == '+' || digits[0] == '-') {
		neg = digits[0] == '-'
		digits = digits[1:]
	}
	for len(digits) > 1 && digits[0] == '0' {
		digits = digits[1:]
	}
	if len(digits) > 10 {
		return fmt.Errorf("number %s: too many nonzero exponent digits for java.math.BigDecimal", s)
	}
	exp, _ := strconv.ParseInt(digits, 10, 64)
	if neg {
		exp = -exp
	}
	if exp > 2147483647 || exp < -2147483648 {
		return fmt.Errorf("number %s: exponent overflow in java.math.BigDecimal", s)
	}
	if scale := int64(frac) - exp; scale > 2147483647 || scale < -2147483648 {
		return fmt.Errorf("number %s: scale out of range for java.math.BigDecimal", s)
	}
	return nil
}
