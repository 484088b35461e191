package java

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// What a Java task gets from a stored value: JsonConverter.convertToConnect
// turns an integral number into a Long (value.longValue()) and any other
// number into a Double (value.doubleValue() of the BigDecimal), and a JSON
// object into a HashMap. Two partition maps are the same partition for
// Connect when those Java maps are equal (HashMap.equals): the same names,
// with Long and Double never equal to each other.

// JavaIdentity is a text that is equal for two parsed values exactly when
// the Java maps the worker reads from them are equal: fields sorted by
// name, numbers as the Long or Double Java reads them.
func JavaIdentity(v any) string { return string(AppendSorted(nil, JavaNumbers(v))) }

// JavaForm is v as Jackson would write what the task reads back: the same
// field order, numbers as Java prints the Long or Double it reads.
func JavaForm(v any) []byte { return AppendJackson(nil, JavaNumbers(v)) }

// SameValue reports whether two parsed values are equal number for number,
// exactly: objects regardless of field order, strings byte for byte,
// integers and decimals by their exact value (1.5 equals 1.50, 5 does not
// equal 5.0, because Java reads one as a Long and the other as a Double).
// Never through float64.
func SameValue(a, b any) bool {
	switch x := a.(type) {
	case Object:
		y, ok := b.(Object)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for _, f := range x {
			g, ok := y.Get(f.Name)
			if !ok || !SameValue(f.Value, g) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !SameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		return ok && sameNumber(string(x), string(y))
	default:
		return a == b
	}
}

// sameNumber compares two JSON number texts exactly; an integer and a
// decimal are different (Long vs Double), whatever their value.
func sameNumber(a, b string) bool {
	if a == b {
		return true
	}
	ai, bi := !strings.ContainsAny(a, ".eE"), !strings.ContainsAny(b, ".eE")
	if ai != bi {
		return false
	}
	ra, ok1 := new(big.Rat).SetString(a)
	rb, ok2 := new(big.Rat).SetString(b)
	if !ok1 || !ok2 {
		return false
	}
	return ra.Cmp(rb) == 0
}

// JavaReadsDiffer reports whether the task reads a different value than
// the stored text says: an integer outside the 64-bit range (Java keeps the
// low 64 bits), a decimal a double cannot hold exactly as written (1e400 is
// Infinity, -0.0 is 0.0, 9007199254740993.0 loses its last digit). Equal
// values in another layout (1.50, 1e2) do not differ.
func JavaReadsDiffer(v any) bool {
	switch x := v.(type) {
	case Object:
		for _, f := range x {
			if JavaReadsDiffer(f.Value) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if JavaReadsDiffer(e) {
				return true
			}
		}
	case json.Number:
		return numberDiffers(string(x))
	}
	return false
}

func numberDiffers(s string) bool {
	switch j := JavaNumber(s).(type) {
	case int64:
		return !sameNumber(strconv.FormatInt(j, 10), s)
	case float64:
		if math.IsInf(j, 0) {
			return true
		}
		if j == 0 {
			// -0.0 reads as 0.0; a nonzero text that underflows to ±0.0
			// differs too.
			return strings.HasPrefix(s, "-") || !zeroMantissa(s)
		}
		exact, ok := new(big.Rat).SetString(s)
		if !ok {
			return true
		}
		got := new(big.Rat)
		got.SetFloat64(j)
		return exact.Cmp(got) != 0 && !shortestMatches(s, j)
	}
	return false
}

// shortestMatches: the stored text is exactly the decimal Java prints for
// the double (0.1 is stored and read as 0.1, though no double is exactly
// 0.1), so nothing is lost between the two.
func shortestMatches(s string, f float64) bool {
	printed := string(appendJavaFloat(nil, f, 64))
	return sameNumber(strings.Replace(printed, "E", "e", 1), s)
}

// JavaWrites returns v as a Java task would write it: every decimal number
// becomes the Double it holds, which AppendJackson prints as Java does
// (1.50 → 1.5, 1e2 → 100.0, 0.00001 → 1.0E-5); integers stay as given.
// Numbers no task could write as given are kept, and each gets a note
// saying what a task reads instead (beyond 64 bits, beyond a double).
func JavaWrites(v any) (any, []string) {
	var notes []string
	var walk func(path string, v any) any
	walk = func(path string, v any) any {
		switch x := v.(type) {
		case Object:
			if x == nil {
				return x
			}
			out := make(Object, len(x))
			for i, f := range x {
				out[i] = Field{Name: f.Name, Value: walk(joinPath(path, f.Name), f.Value)}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = walk(path+"["+strconv.Itoa(i)+"]", e)
			}
			return out
		case json.Number:
			s := string(x)
			switch j := JavaNumber(s).(type) {
			case int64:
				if !sameNumber(strconv.FormatInt(j, 10), s) {
					notes = append(notes, fmt.Sprintf("%s: %s is beyond a Java long: a task reads %d", path, s, j))
				}
				return x
			case float64:
				if math.IsInf(j, 0) {
					notes = append(notes, fmt.Sprintf("%s: %s is beyond a Java double: a task reads %s", path, s, string(appendJavaFloat(nil, j, 64))))
					return x
				}
				return j
			}
		}
		return v
	}
	return walk("", v), notes
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// appendSorted writes v with object fields sorted by name: a canonical form
// for comparing partition maps regardless of field order.
func AppendSorted(dst []byte, v any) []byte {
	switch x := v.(type) {
	case Object:
		s := append(Object(nil), x...)
		sort.SliceStable(s, func(i, j int) bool { return s[i].Name < s[j].Name })
		dst = append(dst, '{')
		for i, f := range s {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJackson(dst, f.Name)
			dst = append(dst, ':')
			dst = AppendSorted(dst, f.Value)
		}
		return append(dst, '}')
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendSorted(dst, e)
		}
		return append(dst, ']')
	}
	return AppendJackson(dst, v)
}
