package java

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The worker looks offsets up by raw key bytes, so keys koff writes must be
// byte-identical to what Connect's JsonConverter (Jackson 2.x with default
// features) produces. Go's encoding/json differs (HTML escaping, lowercase
// \u00xx, raw emoji, escaped U+2028/9), hence this writer.

// EncodeKey returns the offsets-topic key ["<connector>",<p>] as the worker
// writes it; a nil p gives ["<connector>",null].
func EncodeKey(connector string, p Object) []byte {
	b := make([]byte, 0, len(connector)+16+24*len(p))
	b = append(b, '[')
	b = appendJacksonString(b, connector)
	b = append(b, ',')
	b = AppendJackson(b, p)
	return append(b, ']')
}

// AppendJackson appends the compact JSON of v, as Jackson writes it, to dst.
//
// Supported: Object (field order kept), []any, map[string]any (Java HashMap
// order, ties broken by sorted key), string, json.Number (verbatim), Go
// integers, float64/float32 (Java Double/Float.toString), bool, nil and
// []byte (base64). Nil Object, slice and map values are written as null.
// Any other type is written as the JSON string of fmt.Sprint(v), so the
// output is always valid JSON.
func AppendJackson(dst []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case Object:
		if v == nil {
			return append(dst, "null"...)
		}
		dst = append(dst, '{')
		for i, f := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJacksonString(dst, f.Name)
			dst = append(dst, ':')
			dst = AppendJackson(dst, f.Value)
		}
		return append(dst, '}')
	case []any:
		if v == nil {
			return append(dst, "null"...)
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJackson(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		if v == nil {
			return append(dst, "null"...)
		}
		return AppendJackson(dst, mapToObject(v))
	case string:
		return appendJacksonString(dst, v)
	case json.Number:
		return appendNumber(dst, v)
	case bool:
		return strconv.AppendBool(dst, v)
	case int:
		return strconv.AppendInt(dst, int64(v), 10)
	case int8:
		return strconv.AppendInt(dst, int64(v), 10)
	case int16:
		return strconv.AppendInt(dst, int64(v), 10)
	case int32:
		return strconv.AppendInt(dst, int64(v), 10)
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case uint:
		return strconv.AppendUint(dst, uint64(v), 10)
	case uint8:
		return strconv.AppendUint(dst, uint64(v), 10)
	case uint16:
		return strconv.AppendUint(dst, uint64(v), 10)
	case uint32:
		return strconv.AppendUint(dst, uint64(v), 10)
	case uint64:
		return strconv.AppendUint(dst, v, 10)
	case float64:
		return appendJavaFloat(dst, v, 64)
	case float32:
		return appendJavaFloat(dst, float64(v), 32)
	case []byte:
		if v == nil {
			return append(dst, "null"...)
		}
		// Jackson writes byte[] as standard base64 with padding; the
		// alphabet needs no escaping.
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, v)
		return append(dst, '"')
	default:
		return appendJacksonString(dst, fmt.Sprint(v))
	}
}

// mapToObject sorts the keys first so that the HashMap order is
// deterministic even for keys that share a bucket.
func mapToObject(m map[string]any) Object {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	o := make(Object, 0, len(m))
	for _, k := range names {
		o = append(o, Field{Name: k, Value: m[k]})
	}
	return HashMapOrder(o)
}

// appendNumber writes n verbatim when it is a valid JSON number. An empty
// Number is 0 (as in encoding/json); anything else becomes a string so the
// output stays valid JSON.
func appendNumber(dst []byte, n json.Number) []byte {
	switch {
	case n == "":
		return append(dst, '0')
	case isJSONNumber(string(n)):
		return append(dst, n...)
	default:
		return appendJacksonString(dst, string(n))
	}
}

// isJSONNumber reports whether s matches the JSON number grammar.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && IsDigit(s[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i == len(s) || !IsDigit(s[i]) {
			return false
		}
		for i < len(s) && IsDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i == len(s) || !IsDigit(s[i]) {
			return false
		}
		for i < len(s) && IsDigit(s[i]) {
			i++
		}
	}
	return i == len(s)
}

func IsDigit(c byte) bool { return c >= '0' && c <= '9' }

const hexUpper = "0123456789ABCDEF"

// appendJacksonString writes s quoted, escaped as Jackson's UTF8JsonGenerator
// does with default features.
func appendJacksonString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0 // start of the pending run of bytes copied as is
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\r':
				dst = append(dst, '\\', 'r')
			default:
				dst = appendUEscape(dst, uint16(c))
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1 && isWTF8Surrogate(s[i:]):
			// A lone UTF-16 surrogate (readJackson keeps it in its 3-byte
			// form): Jackson escapes it.
			dst = append(dst, s[start:i]...)
			dst = appendUEscape(dst, uint16(s[i]&0x0F)<<12|uint16(s[i+1]&0x3F)<<6|uint16(s[i+2]&0x3F))
			size = 3
		case r == utf8.RuneError && size == 1:
			// Java strings cannot hold invalid UTF-8; the decoder that
			// built them would have produced U+FFFD.
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
		case r > 0xFFFF:
			// Jackson escapes each UTF-16 surrogate separately
			// (COMBINE_UNICODE_SURROGATES_IN_UTF8 is off in 2.x).
			dst = append(dst, s[start:i]...)
			r -= 0x10000
			dst = appendUEscape(dst, uint16(0xD800+(r>>10)))
			dst = appendUEscape(dst, uint16(0xDC00+(r&0x3FF)))
		default:
			i += size // BMP: raw UTF-8, U+2028/9 included
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// isWTF8Surrogate: s starts with a surrogate code point in UTF-8's 3-byte
// form (ED A0–BF xx), which is not valid UTF-8.
func isWTF8Surrogate(s string) bool {
	return len(s) >= 3 && s[0] == 0xED && s[1] >= 0xA0 && s[1] <= 0xBF && s[2]&0xC0 == 0x80
}

func appendUEscape(dst []byte, u uint16) []byte {
	return append(dst, '\\', 'u',
		hexUpper[u>>12], hexUpper[u>>8&0xF], hexUpper[u>>4&0xF], hexUpper[u&0xF])
}

// appendJavaFloat writes f as Java's Double.toString (bits 64) or
// Float.toString (bits 32) of JDK 19+ (shortest round-trip digits), and
// NaN/±Infinity as the quoted strings Jackson writes by default
// (QUOTE_NON_NUMERIC_NUMBERS).
func appendJavaFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	digits, exp := javaDigits(f, bits)
	if f < 0 {
		dst = append(dst, '-')
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		// Plain notation with at least one fractional digit.
		if exp >= 0 {
			if len(digits) > exp+1 {
				dst = append(dst, digits[:exp+1]...)
				dst = append(dst, '.')
				return append(dst, digits[exp+1:]...)
			}
			dst = append(dst, digits...)
			dst = append(dst, strings.Repeat("0", exp+1-len(digits))...)
			return append(dst, ".0"...)
		}
		dst = append(dst, "0."...)
		dst = append(dst, strings.Repeat("0", -exp-1)...)
		return append(dst, digits...)
	}
	// Computerized scientific notation: d.ddd E exponent, no '+'.
	dst = append(dst, digits[0], '.')
	if len(digits) > 1 {
		dst = append(dst, digits[1:]...)
	} else {
		dst = append(dst, '0')
	}
	dst = append(dst, 'E')
	return strconv.AppendInt(dst, int64(exp), 10)
}

// javaDigits returns the significant decimal digits (no trailing zeros) of
// |f| and the decimal exponent of the first digit. Like Go, Java picks the
// shortest digit string that round-trips; but when that is a single digit
// Java picks the closest 2-digit decimal that still round-trips (so
// Double.MIN_VALUE is 4.9E-324, not 5.0E-324).
func javaDigits(f float64, bits int) (string, int) {
	f = math.Abs(f)
	s := strconv.FormatFloat(f, 'e', -1, bits) // d[.ddd]e±XX
	mant, exp := splitE(s)
	if len(mant) == 1 {
		two := strconv.FormatFloat(f, 'e', 1, bits)
		if g, err := strconv.ParseFloat(two, bits); err == nil && g == f {
			mant, exp = splitE(two)
			mant = strings.TrimRight(mant, "0")
			if mant == "" { // cannot happen for f != 0; keep a digit anyway
				mant = "0"
			}
		}
	}
	return mant, exp
}

// splitE turns "d.ddde±XX" into ("dddd", XX).
func splitE(s string) (string, int) {
	e := strings.IndexByte(s, 'e')
	mant := strings.Replace(s[:e], ".", "", 1)
	exp, _ := strconv.Atoi(s[e+1:])
	return mant, exp
}
