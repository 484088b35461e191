package screens

import (
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"koff/keymap"
	"koff/model"
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
