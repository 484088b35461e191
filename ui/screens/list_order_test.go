package screens

import (
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"koff/keymap"
	"koff/model"
	"koff/model/java"
	"koff/model/text"
	"koff/ui/kit"
)

func randomText(rng *rand.Rand) string {
	const alphabet = `{}":,.-_ab0123456789`
	b := make([]byte, rng.Intn(24))
	for i := range b {
		b[i] = alphabet[rng.Intn(len(alphabet))]
	}
	return string(b)
}

// TestNaturalKeyOrdersAsNaturalLess: comparing the keys made once per row
// orders any two strings as naturalLess does (leading zeros, runs of
// unequal length, a run against a letter, a string ending in a run).
func TestNaturalKeyOrdersAsNaturalLess(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	cases := [][2]string{{"9", "10"}, {"007", "7"}, {"a1", "a"}, {"a1b", "a01c"}, {`{"p":9}`, `{"p":10}`}, {"1-", "1a"}, {"", "0"}}
	for range 20000 {
		cases = append(cases, [2]string{randomText(rng), randomText(rng)})
	}
	for _, c := range cases {
		want := naturalCompare(c[0], c[1])
		got := strings.Compare(kit.NaturalKey(c[0]), kit.NaturalKey(c[1]))
		if got != want {
			t.Fatalf("order of %q and %q: keys say %d, naturalCompare %d", c[0], c[1], got, want)
		}
	}
}

func randomPartitionRows(rng *rand.Rand, n int) []model.PartitionRow {
	rows := make([]model.PartitionRow, n)
	base := time.UnixMilli(1_796_000_000_000)
	for i := range rows {
		p := `{"table":"t` + strconv.Itoa(rng.Intn(40)) + `","db":"` + randomText(rng) + `"}`
		r := model.PartitionRow{ID: model.PartitionID{TopicPartition: model.TopicPartition{Topic: []string{"connect-offsets", "other"}[rng.Intn(2)],
			Partition: rng.Intn(25)}, Key: `["c",` + p + `]` + strconv.Itoa(i)}, Partition: p,
			Updated: base.Add(time.Duration(rng.Intn(50)) * time.Second)}
		if rng.Intn(5) > 0 {
			r.Offset = `{"pos":` + strconv.Itoa(rng.Intn(300)) + `}`
		} else {
			r.Deleted = true
		}
		rows[i] = r
	}
	return rows
}

// TestPartitionSortsSameRowsAsComparators: every sort of the partitions
// screen, made with keys once per row, gives exactly the rows a stable sort
// with the screen's comparators gives, with and without a filter.
func TestPartitionSortsSameRowsAsComparators(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	km := keymap.Default()
	st := kit.NewStyles(true)
	s := NewPartitionsScreen(&km, &st, model.ConnectorID{Topic: "connect-offsets", Name: "c"}, 2, 0)
	s.SetSize(200, 60)
	rows := pointers(randomPartitionRows(rng, 3000))
	s.List.SetItems(rows)
	for i, order := range s.List.Sorts {
		for _, q := range []string{"", "t1", `"t1`, "1"} {
			s.List.SetFilter(q)
			var want []Prow
			for _, r := range rows {
				if q == "" || strings.Contains(strings.ToLower(r.Partition), q) || strings.Contains(strings.ToLower(r.ID.TopicPartition.String()), q) {
					want = append(want, r)
				}
			}
			slices.SortStableFunc(want, order.Cmp)
			got := s.List.Rows()
			if len(got) != len(want) {
				t.Fatalf("sort %q filter %q: %d rows, want %d", order.Name, q, len(got), len(want))
			}
			for k := range got {
				if got[k].ID != want[k].ID {
					t.Fatalf("sort %q filter %q: row %d is %v, want %v", order.Name, q, k, got[k].ID, want[k].ID)
				}
			}
		}
		s.List.SetFilter("")
		if i < len(s.List.Sorts)-1 {
			s.CycleSort()
		}
	}
}

// TestIncrementalFilterSameAsFull: typing a filter key by key (each key
// picks from the rows of the last), deleting keys, and new rows arriving
// midway give the rows a list filtering from scratch gives.
func TestIncrementalFilterSameAsFull(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	km := keymap.Default()
	st := kit.NewStyles(true)
	typed := NewPartitionsScreen(&km, &st, model.ConnectorID{Topic: "connect-offsets", Name: "c"}, 2, 0)
	rows := pointers(randomPartitionRows(rng, 2000))
	typed.List.SetItems(rows)
	steps := []string{"t", "t1", "t12", "t1", "t", "", "o", "ot", "oth", "othe", "other/1", "other/", "\"", "\"d", "\"db\":\"a"}
	for k, q := range steps {
		if k == 8 {
			rows = pointers(randomPartitionRows(rng, 2100))
			typed.List.SetItems(rows)
		}
		typed.SetFilter(q)
		fresh := NewPartitionsScreen(&km, &st, model.ConnectorID{Topic: "connect-offsets", Name: "c"}, 2, 0)
		fresh.List.SetItems(rows)
		fresh.SetFilter(q)
		got, want := typed.List.Rows(), fresh.List.Rows()
		if len(got) != len(want) {
			t.Fatalf("filter %q: %d rows typed, %d from scratch", q, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID {
				t.Fatalf("filter %q: row %d differs", q, i)
			}
		}
	}
}

// naturalLessReference is naturalLess before it skipped common prefixes.
func naturalLessReference(a, b string) bool {
	for a != "" && b != "" {
		da, db := kit.DigitRun(a), kit.DigitRun(b)
		if da > 0 && db > 0 {
			na := strings.TrimLeft(a[:da], "0")
			nb := strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// TestNaturalLessSkipsPrefixesExactly: skipping the common prefix changes
// no answer.
func TestNaturalLessSkipsPrefixesExactly(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for range 50000 {
		a := randomText(rng)
		b := a[:rng.Intn(len(a)+1)] + randomText(rng)
		if kit.NaturalLess(a, b) != naturalLessReference(a, b) || kit.NaturalLess(b, a) != naturalLessReference(b, a) {
			t.Fatalf("naturalLess(%q, %q) changed", a, b)
		}
	}
}

// jsonValuesParsed is jsonValues through the parser alone.
func jsonValuesParsed(s string) (string, bool) {
	v, err := java.ParseJSON([]byte(s))
	if err != nil {
		return "", false
	}
	obj, isObj := v.(java.Object)
	if !isObj {
		return "", false
	}
	parts := make([]string, 0, len(obj))
	for _, f := range obj {
		switch x := f.Value.(type) {
		case string:
			parts = append(parts, x)
		case java.Object, []any:
			return "", false
		case nil:
			parts = append(parts, "null")
		default:
			parts = append(parts, fmt.Sprint(x))
		}
	}
	return strings.Join(parts, " "), true
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
		got, ok := kit.PlainValues(c)
		if n, nok := kit.PlainValuesLen(c); nok != ok || n != len(got) {
			t.Fatalf("plainValuesLen(%q) = %d, %v; plainValues gives %q, %v", c, n, nok, got, ok)
		}
		if !ok {
			continue
		}
		want, wok := jsonValuesParsed(c)
		if !wok || got != want {
			t.Fatalf("plainValues(%q) = %q, parsing gives %q (%v)", c, got, want, wok)
		}
	}
	if _, ok := kit.PlainValues(`{"table":"orders","protocol":"1"}`); !ok {
		t.Fatal("a plain partition map takes the slow path")
	}
}

// TestPrefixKeysCompareAsStrings: cutting the shared prefix and comparing
// eight bytes as a number first orders keys as strings.Compare does,
// zero bytes and keys that begin others included.
func TestPrefixKeysCompareAsStrings(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	keys := []string{"", "\x00", "a", "a\x00", "a\x00\x00", "a\x00b", "ab", "abcdefgh", "abcdefgh\x00", "abcdefghi", "abcdefgg\xff"}
	for range 3000 {
		k := `{"cluster":"primary",` + randomText(rng)
		if rng.Intn(4) == 0 {
			k += "\x00"
		}
		keys = append(keys, k)
	}
	for _, set := range [][]string{keys, keys[11:]} {
		p := newPrefixKeys(len(set), func(k int) string { return set[k] })
		for range 50000 {
			a, b := int32(rng.Intn(len(set))), int32(rng.Intn(len(set)))
			if got, want := p.Compare(a, b), strings.Compare(set[a], set[b]); got != want {
				t.Fatalf("%q against %q: %d, want %d", set[a], set[b], got, want)
			}
		}
	}
}

// TestIsPartitionSameAsIdentity: telling a row by its identity without
// building it agrees with comparing the identities.
func TestIsPartitionSameAsIdentity(t *testing.T) {
	rows := randomPartitionRows(rand.New(rand.NewSource(19)), 400)
	rows = append(rows, model.PartitionRow{ID: model.PartitionID{TopicPartition: model.TopicPartition{Topic: "a", Partition: 1}, Key: "1\x00x"}},
		model.PartitionRow{ID: model.PartitionID{TopicPartition: model.TopicPartition{Topic: "a", Partition: 11}, Key: "x"}})
	for _, a := range rows {
		is := isPartition(partitionIdentity(a))
		for _, b := range rows {
			if is(&b) != (partitionIdentity(a) == partitionIdentity(b)) {
				t.Fatalf("%v against %v: %v", a.ID, b.ID, is(&b))
			}
		}
	}
}

// TestPlainCellsMeasuredAsCleaned: the fast paths for printable ASCII give
// what the full ones give: cleanJSON leaves such a cell as it is, and
// compactWidth measures the values it would make, for random texts and
// maps, cells at and past cellMax bytes, and bytes outside ASCII.
func TestPlainCellsMeasuredAsCleaned(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	cases := []string{"", "{}", `{"offset":4242}`, `{"a":"","b":1}`, "{\"a\":\"\x7f\"}", "{\"a\":\"\u00e9\"}", "\x1b[2J",
		`{"lsn":"` + strings.Repeat("9", kit.CellMax-10) + `"}`, `{"lsn":"` + strings.Repeat("9", kit.CellMax-9) + `"}`, strings.Repeat("x", kit.CellMax+1)}
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
		slow := text.Sanitize(text.Clip(string(text.JSONSafe([]byte(c))), kit.CellMax))
		if got := kit.CleanJSON(c); got != slow {
			t.Fatalf("cleanJSON(%q) = %q, the full path %q", c, got, slow)
		}
		want := kit.CellWidth(kit.CleanJSON(c))
		if vals, ok := kit.JSONValues(c); ok {
			want = kit.CellWidth(kit.Clean(vals))
		}
		if got := kit.CompactWidth(c); got != want {
			t.Fatalf("compactWidth(%q) = %d, made and measured %d", c, got, want)
		}
	}
}
