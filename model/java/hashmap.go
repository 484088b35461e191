package java

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// REST offset edits (PATCH/DELETE) re-serialise partition maps that
// JsonConverter deserialised into java.util.HashMap, so their field order is
// HashMap iteration order. A connector that builds its maps in another order
// never reads what REST writes; HashMapOrder and IsRESTCanonical detect that.

// HashMapOrder returns o's fields in the order a java.util.HashMap<String,…>
// filled by putting them in o's order would iterate (facts Appendix C).
// As in the worker, a repeated name keeps its first position and its last
// value, and nested objects (also inside arrays) are reordered too, since
// JsonConverter turns every JSON object into a HashMap.
//
// Not modelled: treeified bins (9+ names in one bucket of a table of 64 or
// more buckets), which no realistic partition map reaches.
func HashMapOrder(o Object) Object {
	if o == nil {
		return nil
	}
	type entry struct {
		f    Field
		hash uint32
	}
	entries := make([]entry, 0, len(o))
	pos := make(map[string]int, len(o))
	capacity := uint32(16)
	for _, f := range o {
		f.Value = hashMapOrderValue(f.Value)
		if i, ok := pos[f.Name]; ok {
			entries[i].f.Value = f.Value
			continue
		}
		h := JavaStringHash(f.Name)
		h ^= h >> 16 // HashMap.hash's spread
		inBin := 0
		for _, e := range entries {
			if e.hash&(capacity-1) == h&(capacity-1) {
				inBin++
			}
		}
		pos[f.Name] = len(entries)
		entries = append(entries, entry{f, h})
		// putVal: a bin reaching 9 nodes calls treeifyBin, which only
		// resizes while the table is smaller than 64 buckets.
		if inBin >= 8 && capacity < 64 {
			capacity *= 2
		}
		if uint32(len(entries)) > capacity/4*3 {
			capacity *= 2
		}
	}
	// Resizes split bins without reordering them, so the final order is
	// simply by bucket, then by insertion.
	slices.SortStableFunc(entries, func(a, b entry) int {
		return int(a.hash&(capacity-1)) - int(b.hash&(capacity-1))
	})
	out := make(Object, len(entries))
	for i, e := range entries {
		out[i] = e.f
	}
	return out
}

func hashMapOrderValue(v any) any {
	switch v := v.(type) {
	case Object:
		return HashMapOrder(v)
	case []any:
		if v == nil {
			return v
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = hashMapOrderValue(e)
		}
		return out
	}
	return v
}

// javaStringHash is String.hashCode: over UTF-16 code units, with int32
// wraparound (done here in uint32, which has the same bits).
func JavaStringHash(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + uint32(hi)
			h = 31*h + uint32(lo)
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}

// javaNumbers replaces json.Numbers with the Long (int64) or Double
// (float64) JsonConverter would read them as.
func JavaNumbers(v any) any {
	switch v := v.(type) {
	case Object:
		if v == nil {
			return v
		}
		out := make(Object, len(v))
		for i, f := range v {
			out[i] = Field{Name: f.Name, Value: JavaNumbers(f.Value)}
		}
		return out
	case []any:
		if v == nil {
			return v
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = JavaNumbers(e)
		}
		return out
	case json.Number:
		return JavaNumber(string(v))
	}
	return v
}

func JavaNumber(s string) any {
	if !isJSONNumber(s) {
		return json.Number(s)
	}
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n
		}
		// Jackson reads it as a BigInteger; longValue() keeps the low
		// 64 bits.
		b, _ := new(big.Int).SetString(s, 10)
		lo := new(big.Int).And(b, new(big.Int).SetUint64(^uint64(0)))
		return int64(lo.Uint64())
	}
	// USE_BIG_DECIMAL_FOR_FLOATS: the text becomes a BigDecimal, then
	// doubleValue(): correctly rounded, ±Infinity on overflow. A BigDecimal
	// zero has no sign, so -0.0 reads as 0.0; a negative value too small
	// for a double still gives -0.0.
	if zeroMantissa(s) {
		return 0.0
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// zeroMantissa reports whether every digit before the exponent is 0.
func zeroMantissa(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == 'e' || c == 'E':
			return true
		case c >= '1' && c <= '9':
			return false
		}
	}
	return true
}
