package store

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"

	"koff/model"
	"koff/model/java"
)

var plainSeeds = []string{
	`{}`, `{"offset":4242}`, `{"lsn":1152921504606846976,"txId":7343870,"ts_usec":1795978080272535}`,
	`{"transaction_id":null,"lsn_proc":1,"messageType":"UPDATE","snapshot":true,"last":false}`,
	`{"position":0}`, `{"a":-12}`, `{"file":"/var/log/app-1.log","position":88231}`, `{"":1}`,
	`{"max":9223372036854775807,"min":-9223372036854775808}`, `{"a":1234567890123456789}`,
	// not plain: each needs the full reading
	` {"a":1}`, `{"a":1} `, `{"a" :1}`, `{"a":1,"a":2}`, `{"a":-0}`, `{"a":007}`, `{"a":1.5}`, `{"a":1e3}`,
	`{"a":9223372036854775808}`, `{"a":-9223372036854775809}`, `{"a":10000000000000000000}`, `{"a":"\u00e9"}`, `{"a":"é"}`, `{"a\n":1}`,
	`{"a":{"b":1}}`, `{"a":[1]}`, `{"a":tru}`, `{"a":truex}`, `{"a":nul}`, `{"a":1,}`, `{"a":1}x`, `{"a":1`,
	`null`, ``, `[]`, `"x"`, `{"a":"\"}`, "{\"a\":\"\x7f\"}", `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17}`,
}

// checkPlain: what plainOffset promises is what the full reading says.
func checkPlain(t *testing.T, raw []byte) {
	t.Helper()
	if !plainOffset(raw) {
		return
	}
	o, err := model.ParseOffset(raw)
	if err != nil {
		t.Fatalf("plain %q, but ParseOffset fails: %v", raw, err)
	}
	if java.JavaReadsDiffer(o) {
		t.Fatalf("plain %q, but Java reads a number differently", raw)
	}
	if got := java.AppendJackson(nil, o); string(got) != string(raw) {
		t.Fatalf("plain %q, but its compact form is %q", raw, got)
	}
}

// TestPlainOffsetMeansWhatParsingSays: for every value plainOffset takes
// without parsing, the full Jackson reading agrees (a readable offset, no
// Java number change, compact as stored); the forms it leaves to the full
// reading are not taken; and the values workers write are plain.
func TestPlainOffsetMeansWhatParsingSays(t *testing.T) {
	for i, s := range plainSeeds {
		checkPlain(t, []byte(s))
		if want := i < 10; plainOffset([]byte(s)) != want {
			t.Errorf("plainOffset(%q) = %v, want %v", s, !want, want)
		}
	}
	// The Store answers the same with and without the shortcut.
	for _, s := range plainSeeds {
		raw := []byte(s)
		_, err := model.ParseOffset(raw)
		want := valueOffset
		switch {
		case err == model.ErrNullOffset:
			want = valueNull
		case err != nil:
			want = valueUnreadable
		}
		if got := classifyValue(raw); got != want {
			t.Errorf("classifyValue(%q) = %d, full reading says %d", s, got, want)
		}
	}
}

// FuzzPlainOffset: no input makes plainOffset promise what parsing denies.
func FuzzPlainOffset(f *testing.F) {
	for _, s := range plainSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkPlain(t, raw) })
}

// plainString, 8 bytes at a time, ends a string where the byte-by-byte
// reading does: every byte value at every place of strings long and short.
func TestPlainStringIsTheByteTest(t *testing.T) {
	ref := func(raw []byte, i int) int {
		j := i + 1
		for j < len(raw) && plainChars[raw[j]] {
			j++
		}
		if j < len(raw) && raw[j] == '"' {
			return j + 1
		}
		return -1
	}
	for n := 0; n <= 26; n++ {
		for at := 0; at < n; at++ {
			for c := range 256 {
				raw := []byte(`"` + strings.Repeat("a", n) + `"x`)
				raw[1+at] = byte(c)
				if got, want := plainString(raw, 0), ref(raw, 0); got != want {
					t.Fatalf("%q: %d, want %d", raw, got, want)
				}
				if got, want := plainString(string(raw), 0), ref(raw, 0); got != want {
					t.Fatalf("%q as a string: %d, want %d", raw, got, want)
				}
			}
		}
	}
}

// TestPlainStringFindsTheFirstOddByte: plainString is the byte test on
// strings with several bytes out of the plain range, anywhere, of any
// value (a byte flagged by a borrow from one below it must not be taken
// for the first).
func TestPlainStringFindsTheFirstOddByte(t *testing.T) {
	ref := func(raw []byte, i int) int {
		j := i + 1
		for j < len(raw) && plainChars[raw[j]] {
			j++
		}
		if j < len(raw) && raw[j] == '"' {
			return j + 1
		}
		return -1
	}
	odd := []byte{0, 1, 0x1f, 0x20, '"', '\\', 0x7e, 0x7f, 0x80, 0xc3, 0xff, 'a'}
	r := rand.New(rand.NewPCG(11, 12))
	for range 200_000 {
		raw := []byte(`"` + strings.Repeat("a", r.IntN(30)))
		for range 1 + r.IntN(3) {
			if len(raw) > 1 {
				raw[1+r.IntN(len(raw)-1)] = odd[r.IntN(len(odd))]
			}
		}
		if r.IntN(2) == 0 {
			raw = append(raw, '"', 'x')
		}
		if got, want := plainString(raw, 0), ref(raw, 0); got != want {
			t.Fatalf("%q: %d, want %d", raw, got, want)
		}
		if got, want := plainString(string(raw), 0), ref(raw, 0); got != want {
			t.Fatalf("%q as a string: %d, want %d", raw, got, want)
		}
	}
}

// allDigits is the byte test over 8 bytes: every byte value at every place
// among digits, and pairs of non-digits.
func TestAllDigitsIsTheByteTest(t *testing.T) {
	digits := func(b []byte) bool {
		for _, c := range b {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	check := func(b []byte) {
		if got, want := allDigits(binary.LittleEndian.Uint64(b)), digits(b); got != want {
			t.Fatalf("%q: %v, want %v", b, got, want)
		}
	}
	for at := range 8 {
		for c := range 256 {
			b := []byte("01234567")
			b[at] = byte(c)
			check(b)
			for at2 := at + 1; at2 < 8; at2++ {
				for _, c2 := range []byte{0, '/', ':', 0x7f, 0x80, 0xb9, 0xba, 0xff} {
					b2 := append([]byte{}, b...)
					b2[at2] = c2
					check(b2)
				}
			}
		}
	}
}
