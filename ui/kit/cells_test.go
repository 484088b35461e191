package kit

import (
	"math/rand"
	"strings"
	"testing"

	"koff/model/text"
)

// TestNaturalLessSkipsPrefixesExactly: skipping the common prefix changes
// no answer.
func TestNaturalLessSkipsPrefixesExactly(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for range 50000 {
		a := randomText(rng)
		b := a[:rng.Intn(len(a)+1)] + randomText(rng)
		if NaturalLess(a, b) != naturalLessFrom(a, b) || NaturalLess(b, a) != naturalLessFrom(b, a) {
			t.Fatalf("naturalLess(%q, %q) changed", a, b)
		}
	}
}

// TestPlainValuesSameAsParsed: the values read without parsing are what
// parsing gives, for every map plainValues takes.
func TestPlainValuesSameAsParsed(t *testing.T) {
	cases := []string{`{}`, `{"table":"orders","protocol":"1"}`, `{"offset":4242}`, `{"a":-1.5e+3,"b":true,"c":false,"d":null}`,
		`{"a":"x","a":"y"}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":"\u00e9"}`, `{"a":{"b":1}}`, `{"a":[1]}`, `{"a":1}}`, `{"a":1,}`,
		`{"a":tru}`, `{"a":nullx}`, `{"a" :1}`, `{"":""}`, `{"a":1`, `{"lsn":1152921504606846976}`}
	rng := rand.New(rand.NewSource(9))
	for range 20000 {
		cases = append(cases, "{"+randomText(rng)+"}")
	}
	for _, c := range cases {
		got, ok := plainValues(c)
		if n, nok := plainValuesLen(c); nok != ok || n != len(got) {
			t.Fatalf("plainValuesLen(%q) = %d, %v; plainValues gives %q, %v", c, n, nok, got, ok)
		}
		if !ok {
			continue
		}
		want, wok := parsedValues(c)
		if !wok || got != want {
			t.Fatalf("plainValues(%q) = %q, parsing gives %q (%v)", c, got, want, wok)
		}
	}
	if _, ok := plainValues(`{"table":"orders","protocol":"1"}`); !ok {
		t.Fatal("a plain partition map takes the slow path")
	}
}

// TestPlainCellsMeasuredAsCleaned: the fast paths for printable ASCII give
// what the full ones give: cleanJSON leaves such a cell as it is, and
// compactWidth measures the values it would make, for random texts and
// maps, cells at and past cellMax bytes, and bytes outside ASCII.
func TestPlainCellsMeasuredAsCleaned(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	cases := []string{"", "{}", `{"offset":4242}`, `{"a":"","b":1}`, "{\"a\":\"\x7f\"}", "{\"a\":\"\u00e9\"}", "\x1b[2J",
		`{"lsn":"` + strings.Repeat("9", CellMax-10) + `"}`, `{"lsn":"` + strings.Repeat("9", CellMax-9) + `"}`, strings.Repeat("x", CellMax+1)}
	for range 20000 {
		c := randomText(rng)
		if rng.Intn(2) == 0 {
			c = "{" + c + "}"
		}
		if rng.Intn(8) == 0 { // a byte clean or cleanJSON changes
			odd := []string{"\x7f", "\x1b", "\n", "é", "\u202e", "\xff"}[rng.Intn(6)]
			i := rng.Intn(len(c) + 1)
			c = c[:i] + odd + c[i:]
		}
		cases = append(cases, c)
	}
	for _, c := range cases {
		slow := text.Sanitize(text.Clip(string(text.JSONSafe([]byte(c))), CellMax))
		if got := CleanJSON(c); got != slow {
			t.Fatalf("cleanJSON(%q) = %q, the full path %q", c, got, slow)
		}
		want := CellWidth(CleanJSON(c))
		if vals, ok := jsonValues(c); ok {
			want = CellWidth(Clean(vals))
		}
		if got := CompactWidth(c); got != want {
			t.Fatalf("compactWidth(%q) = %d, made and measured %d", c, got, want)
		}
	}
}

func randomText(rng *rand.Rand) string {
	const alphabet = `{}":,.-_ab0123456789`
	b := make([]byte, rng.Intn(24))
	for i := range b {
		b[i] = alphabet[rng.Intn(len(alphabet))]
	}
	return string(b)
}
