package java

import (
	"bytes"
	"reflect"
	"testing"
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
