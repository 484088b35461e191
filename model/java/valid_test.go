package java

import (
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	`{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5e-3, -0, true, false, null, "x\u00e9\n"]} `, `"s"`, `0`, `-1.0E+2`,
	`{"lsn":1152921504606846976,"txId":7343870}`, `{"a":"\ud800"}`, `"é` + "\xff\x7f" + `"`,
	``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[,1]`, `01`, `-`, `1.`, `.1`, `1e`, `1e+`, `+1`,
	`tru`, `nul`, `"a`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"\x01\"", `{"a":1}x`, `{} {}`, `{"a":1 "b":2}`,
	`{1:2}`, `[1 2]`, `NaN`, `Infinity`, "\t\r\n[]\n", `{"a":[{"b":{}}]}`, `"\/\b\f\r\t\\\""`,
}

// TestValidJSONAgreesWithEncodingJSON: the fast validator accepts exactly
// what encoding/json's Valid accepts, including at the nesting cap.
func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	cases := append([]string(nil), validSeeds...)
	for _, d := range []int{9999, 10000, 10001} {
		cases = append(cases, strings.Repeat("[", d)+strings.Repeat("]", d))
		cases = append(cases, strings.Repeat(`{"a":`, d)+"1"+strings.Repeat("}", d))
	}
	for _, c := range cases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("validJSON(%.40q) = %v, encoding/json says %v", c, got, want)
		}
		obj := json.Valid([]byte(c)) && strings.HasPrefix(strings.TrimLeft(c, " \t\r\n"), "{")
		if got := validObject([]byte(c)); got != obj {
			t.Errorf("validObject(%.40q) = %v, want %v", c, got, obj)
		}
	}
}

// FuzzValidJSON: validJSON and encoding/json's Valid never disagree.
func FuzzValidJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}

func BenchmarkValidJSON(b *testing.B) {
	v := []byte(`{"transaction_id":null,"lsn_proc":1152921504608846982,"messageType":"UPDATE","lsn_commit":1152921504608846982,"lsn":1152921504608846982,"txId":7000002,"ts_usec":1796118197960124}`)
	b.Run("koff", func(b *testing.B) {
		b.SetBytes(int64(len(v)))
		for range b.N {
			if !validObject(v) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(v)))
		for range b.N {
			if !json.Valid(v) {
				b.Fatal("invalid")
			}
		}
	})
}
