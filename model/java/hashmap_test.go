package java

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func names(o Object) []string {
	var n []string
	for _, f := range o {
		n = append(n, f.Name)
	}
	return n
}

func TestJavaStringHash(t *testing.T) {
	tests := []struct {
		in   string
		want int32 // values of String.hashCode()
	}{
		{"", 0},
		{"a", 97},
		{"hello", 99162322},
		{"polygenelubricants", math32(-2147483648)},
		{"😀", 1772899}, // surrogate pair D83D DE00
	}
	for _, tt := range tests {
		if got := int32(JavaStringHash(tt.in)); got != tt.want {
			t.Errorf("hash(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func math32(v int64) int32 { return int32(v) }

func TestHashMapOrder(t *testing.T) {
	// Orders marked Java were checked against java.util.HashMap (JDK 25).
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"facts example (Java)", []string{"table", "database", "schema", "a"}, []string{"schema", "a", "database", "table"}},
		{"single field", []string{"server"}, []string{"server"}},
		{"mirror maker (Java)", []string{"cluster", "partition", "topic"}, []string{"cluster", "partition", "topic"}},
		{"sink style (Java)", []string{"kafka_topic", "kafka_partition"}, []string{"kafka_partition", "kafka_topic"}},
		{
			// 10 names share bucket 5 of 64; treeifyBin resizes the table to
			// 64 though the size alone would give 32, which moves f60/f82
			// (bucket 1 of 32, 33 of 64) behind them (Java).
			"treeify resizes",
			[]string{"f60", "f82", "f31", "f53", "f75", "f97", "f110", "f132", "f154", "f176", "f198", "f231", "f103", "f125"},
			[]string{"f31", "f53", "f75", "f97", "f110", "f132", "f154", "f176", "f198", "f231", "f60", "f82", "f103", "f125"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o Object
			for i, n := range tt.in {
				o = append(o, Field{n, i})
			}
			got := HashMapOrder(o)
			if !reflect.DeepEqual(names(got), tt.want) {
				t.Errorf("order = %q, want %q", names(got), tt.want)
			}
			for _, f := range got {
				if tt.in[f.Value.(int)] != f.Name {
					t.Errorf("field %s lost its value", f.Name)
				}
			}
		})
	}
}

func TestHashMapOrderFactsExample(t *testing.T) {
	in := Object{{"table", "t1"}, {"database", "db"}, {"schema", "public"}, {"a", json.Number("1")}}
	want := `{"schema":"public","a":1,"database":"db","table":"t1"}`
	if got := string(AppendJackson(nil, HashMapOrder(in))); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if in[0].Name != "table" {
		t.Error("HashMapOrder modified its input")
	}
}

func TestHashMapOrderDuplicatesAndNesting(t *testing.T) {
	in := Object{{"table", "t1"}, {"database", "db"}, {"table", "t2"}, {"n", Object{{"table", 1}, {"a", 2}}}}
	got := string(AppendJackson(nil, HashMapOrder(in)))
	want := `{"database":"db","table":"t2","n":{"a":2,"table":1}}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if HashMapOrder(nil) != nil {
		t.Error("nil must stay nil")
	}
	if o := HashMapOrder(Object{}); o == nil || len(o) != 0 {
		t.Error("empty must stay empty and non-nil")
	}
}

// refHashMap is a second, literal model of java.util.HashMap.putVal and
// resize (linked bins, lo/hi split), used to check HashMapOrder on random
// inputs that stay below treeification.
func refHashMap(o Object) []string {
	type node struct {
		name string
		hash uint32
	}
	tab := make([][]node, 16)
	size, threshold := 0, 12
	resize := func() {
		old := tab
		tab = make([][]node, 2*len(old))
		for j, bin := range old {
			var lo, hi []node
			for _, e := range bin {
				if e.hash&uint32(len(old)) == 0 {
					lo = append(lo, e)
				} else {
					hi = append(hi, e)
				}
			}
			tab[j], tab[j+len(old)] = lo, hi
		}
		threshold *= 2
	}
outer:
	for _, f := range o {
		h := JavaStringHash(f.Name)
		h ^= h >> 16
		i := h & uint32(len(tab)-1)
		for _, e := range tab[i] {
			if e.name == f.Name {
				continue outer
			}
		}
		tab[i] = append(tab[i], node{f.Name, h})
		if len(tab[i]) >= 9 {
			if len(tab) >= 64 {
				panic("treeified")
			}
			resize()
		}
		if size++; size > threshold {
			resize()
		}
	}
	var out []string
	for _, bin := range tab {
		for _, e := range bin {
			out = append(out, e.name)
		}
	}
	return out
}

// randName is up to max runes from anywhere in the first three planes:
// names whose Java hashes fall in every bucket.
func randName(r *rand.Rand, max int) string {
	b := make([]rune, r.IntN(max+1))
	for i := range b {
		b[i] = rune(r.IntN(0x30000))
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func TestHashMapOrderMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 2000; i++ {
		n := 1 + r.IntN(40)
		var o Object
		for j := 0; j < n; j++ {
			var name string
			if r.IntN(2) == 0 {
				name = fmt.Sprintf("f%d", r.IntN(3*n))
			} else {
				name = randName(r, 6)
			}
			o = append(o, Field{name, j})
		}
		want := refHashMap(o)
		if got := names(HashMapOrder(o)); !reflect.DeepEqual(got, want) {
			t.Fatalf("input %q:\n got %q\nwant %q", names(o), got, want)
		}
	}
}

func TestJavaNumber(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"7", "7"},
		{"-0", "0"},
		{"9223372036854775808", "-9223372036854775808"},
		{"-9223372036854775809", "9223372036854775807"},
		{"18446744073709551617", "1"},
		{"1.50", "1.5"},
		{"1E2", "100.0"},
		{"1e400", `"Infinity"`},
		{"-1e400", `"-Infinity"`},
		{"0.0001", "1.0E-4"},
	}
	for _, tt := range tests {
		if got := string(AppendJackson(nil, JavaNumber(tt.in))); got != tt.want {
			t.Errorf("javaNumber(%s) writes %s, want %s", tt.in, got, tt.want)
		}
	}
}
