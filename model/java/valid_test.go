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
	`{"a":-0.0,"b":1E+2,"c":[true,false,null]}`, `{"a":01}`, `{"a":1.}`, `{"a":"\x"}`, `{"a" 1}`, `{"a":1}}`, "\"\xff\"",
	// Runs of string bytes and digits, each with one byte that ends or
	// spoils them at every place of an eight-byte word.
	`{"abcdefghijklmnopq":12345678901234567890.12345678901e12345678901}`, "\"abcdefg\x1fhijklmnop\"", "\"abcdefgh\x7fijklmnop\"",
	`"abcdefg\"hijklmnop"`, `"abcdefgh\u00e9ijklmnop"`, `"abcdefg\qhijklmnop"`, "\"ééééééééé\xff\xfe\"", `12345678901234567a`,
	`123456789012345678901234567890`, `-0.12345678901234567E+12345678`, `"abcdefghijklmnopqrstuvwxyz`, `1234567/89`, "1234567\xb089",
	`"a!#$%&'()*+,-./0123456789:;<=>?@[]^_{|}~"`,
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
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%.40q) = %v, encoding/json says %v", c, got, want)
		}
		obj := json.Valid([]byte(c)) && strings.HasPrefix(strings.TrimLeft(c, " \t\r\n"), "{")
		if got := validObject([]byte(c)); got != obj {
			t.Errorf("validObject(%.40q) = %v, want %v", c, got, obj)
		}
	}
}

// FuzzValidJSON: Valid and encoding/json's Valid never disagree.
func FuzzValidJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
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
