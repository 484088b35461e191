package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzJacksonWriter: any JSON value koff parses is written as Jackson
// writes it, and that is a fixed point: parse → write → parse → write
// gives the same bytes and the same value, so an edit never drifts a value
// it did not mean to change.
func FuzzJacksonWriter(f *testing.F) {
	for _, s := range []string{
		`{"lsn":1152921931530534183,"ts_usec":1795978080272535,"f":1.5,"e":1e21,"n":-0.0,"s":"é\u2028\ud83d\ude00"}`,
		`[1,2.50,3E+2,-4e-7,12345678901234567890,0.1,1E400,-1E-400]`,
		`"\u0000\u001f\u007f\u009b\u202e"`, `true`, `null`, `{"a":{"b":[{}]}}`, `{"a":1,"a":2}`,
		`1.7976931348623157e308`, `4.9e-324`, `100000000000000000000000`, `0.000001`, `1e-7`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := ParseJSON(raw)
		if err != nil {
			return
		}
		w1 := AppendJackson(nil, v)
		v1, err := ParseJSON(w1)
		if err != nil {
			t.Fatalf("%q written as %s, which does not parse: %v", raw, w1, err)
		}
		w2 := AppendJackson(nil, v1)
		if !bytes.Equal(w1, w2) {
			t.Fatalf("not a fixed point: %q → %s → %s", raw, w1, w2)
		}
		v2, _ := ParseJSON(w2)
		if !reflect.DeepEqual(v1, v2) {
			t.Fatalf("value drifts: %s → %#v → %#v", w1, v1, v2)
		}
	})
}

// FuzzSanitize: nothing a terminal acts on survives Sanitize, what it
// writes is left alone by a second pass, and safe text is untouched;
// JSONSafe keeps JSON valid and its meaning; Clip cuts on a character
// boundary.
func FuzzSanitize(f *testing.F) {
	for _, s := range controlClasses {
		f.Add("x" + s + "y")
	}
	f.Add("plain ascii")
	f.Add("日本語 \\x1b literal")
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		if raw := rawControl(out); raw != "" {
			t.Fatalf("Sanitize(%q) = %q keeps %q raw", s, out, raw)
		}
		if again := Sanitize(out); again != out {
			t.Fatalf("second pass changes %q to %q", out, again)
		}
		if rawControl(s) == "" && out != s {
			t.Fatalf("safe %q changed to %q", s, out)
		}
		j, _ := json.Marshal(s)
		js := JSONSafe(j)
		if raw := rawControl(string(js)); raw != "" {
			t.Fatalf("JSONSafe(%s) = %s keeps %q raw", j, js, raw)
		}
		var a, b string
		json.Unmarshal(j, &a)
		if err := json.Unmarshal(js, &b); err != nil || a != b {
			t.Fatalf("JSONSafe(%s) = %s: %q, %v; want %q", j, js, b, err, a)
		}
		if !utf8.ValidString(s) {
			return
		}
		for _, n := range []int{0, 1, 3, len(s) / 2} {
			c := Clip(s, n)
			if !utf8.ValidString(c) || (len(s) > n && !strings.Contains(c, "more bytes)")) {
				t.Fatalf("Clip(%q, %d) = %q", s, n, c)
			}
		}
	})
}
