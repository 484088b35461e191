package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"koff/model/java"
)

func TestParseKey(t *testing.T) {
	tests := []struct {
		name      string
		raw       string
		connector string
		partition java.Object
		praw      string
	}{
		{"debezium", `["inventory-connector",{"server":"dbserver1"}]`, "inventory-connector", java.Object{{Name: "server", Value: "dbserver1"}}, `{"server":"dbserver1"}`},
		{"spaces read as Jackson does", ` [ "c" , { "a" : 1 , "b":[ 2 ] } ] `, "c", java.Object{{Name: "a", Value: json.Number("1")}, {Name: "b", Value: []any{json.Number("2")}}}, `{"a":1,"b":[2]}`},
		{"leading zeros and trailing text (ALLOW_LEADING_ZEROS_FOR_NUMBERS, no FAIL_ON_TRAILING_TOKENS)", `["c",{"a":007,"b":-00.5}] trailing`, "c", java.Object{{Name: "a", Value: json.Number("7")}, {Name: "b", Value: json.Number("-0.5")}}, `{"a":7,"b":-0.5}`},
		{"null partition", `["my-connector",null]`, "my-connector", nil, `null`},
		{"empty partition", `["c",{}]`, "c", java.Object{}, `{}`},
		{"order kept, a repeated name in its first place with its last value (ObjectNode.replace)", `["c",{"z":1,"a":2,"z":3}]`, "c", java.Object{{Name: "z", Value: json.Number("3")}, {Name: "a", Value: json.Number("2")}}, `{"z":3,"a":2}`},
		{"escapes decoded", `["a\"\\\u00e9\uD83D\uDE00",{"f":"\/"}]`, "a\"\\é😀", java.Object{{Name: "f", Value: "/"}}, `{"f":"/"}`},
		{"commas and brackets in strings", `["a,]",{"x":"}],["}]`, "a,]", java.Object{{Name: "x", Value: "}],["}}, `{"x":"}],["}`},
		{"nested partition", `["c",{"o":{"p":[1,{"q":null}]}}]`, "c", java.Object{{Name: "o", Value: java.Object{{Name: "p", Value: []any{json.Number("1"), java.Object{{Name: "q", Value: nil}}}}}}}, `{"o":{"p":[1,{"q":null}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParseKey([]byte(tt.raw))
			if err != nil {
				t.Fatalf("ParseKey: %v", err)
			}
			if k.Connector != tt.connector {
				t.Errorf("Connector = %q, want %q", k.Connector, tt.connector)
			}
			if !reflect.DeepEqual(k.Partition, tt.partition) {
				t.Errorf("Partition = %#v, want %#v", k.Partition, tt.partition)
			}
			if string(k.PartitionRaw) != tt.praw {
				t.Errorf("PartitionRaw = %s, want %s", k.PartitionRaw, tt.praw)
			}
		})
	}
}

func TestParseKeyErrors(t *testing.T) {
	tests := []struct {
		raw  []byte
		want string
	}{
		{nil, "key is empty"},
		{[]byte{}, "key is empty"},
		{[]byte(`   `), "key is empty"},
		{[]byte(`["c",{"a":1}`), "key is not JSON: unexpected end of input"},
		{[]byte(`["c",{"a":1},]`), "key is not JSON: unexpected character \"]\": expected a JSON value"},
		{[]byte("\xff"), "key is not JSON: unexpected character 0xff: expected a JSON value"},
		{[]byte(`["c",{"a":NaN}]`), "key is not JSON: unexpected character \"N\": expected a JSON value"},
		{[]byte(`["c",{"a":1/*x*/}]`), "key is not JSON: unexpected character \"/\": expected ',' or '}'"},
		{[]byte(`{"c":1}`), "key is not a JSON array"},
		{[]byte(`"c"`), "key is not a JSON array"},
		{[]byte(`null`), "key is not a JSON array"},
		{[]byte(`42`), "key is not a JSON array"},
		{[]byte(`[]`), "key array has 0 elements, want 2"},
		{[]byte(`[ ]`), "key array has 0 elements, want 2"},
		{[]byte(`["c"]`), "key array has 1 elements, want 2"},
		{[]byte(`["c",{},{}]`), "key array has 3 elements, want 2"},
		{[]byte(`[1,{}]`), "first element is not a string"},
		{[]byte(`[null,{}]`), "first element is not a string"},
		{[]byte(`[["c"],{}]`), "first element is not a string"},
		{[]byte(`["c","p"]`), "second element is not an object or null"},
		{[]byte(`["c",[]]`), "second element is not an object or null"},
		{[]byte(`["c",1]`), "second element is not an object or null"},
		{[]byte(`["c",true]`), "second element is not an object or null"},
	}
	for _, tt := range tests {
		k, err := ParseKey(tt.raw)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseKey(%q) error = %v, want %q", tt.raw, err, tt.want)
		}
		if !reflect.DeepEqual(k, Key{}) {
			t.Errorf("ParseKey(%q) returned %+v with an error", tt.raw, k)
		}
	}
}

func TestParseKeyCopiesRaw(t *testing.T) {
	raw := []byte(`["c",{"a":1}]`)
	k, err := ParseKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	copy(raw, bytes.Repeat([]byte("x"), len(raw)))
	if string(k.PartitionRaw) != `{"a":1}` {
		t.Errorf("PartitionRaw aliases the input: %s", k.PartitionRaw)
	}
}

func TestParseOffset(t *testing.T) {
	tests := []struct {
		name    string
		raw     []byte
		want    java.Object
		wantErr string
	}{
		{"tombstone", nil, nil, ""},
		{"debezium", []byte(`{"ts_sec":1530168941,"file":"mysql-bin.000004","pos":3261,"row":1,"snapshot":false,"gtids":null}`),
			java.Object{{Name: "ts_sec", Value: json.Number("1530168941")}, {Name: "file", Value: "mysql-bin.000004"}, {Name: "pos", Value: json.Number("3261")},
				{Name: "row", Value: json.Number("1")}, {Name: "snapshot", Value: false}, {Name: "gtids", Value: nil}}, ""},
		{"empty object", []byte(`{}`), java.Object{}, ""},
		{"nested refused by OffsetUtils.validateFormat", []byte(`{"a":{"b":[1]}}`), nil, "Offsets may only contain primitive types as values, but field a contains MAP"},
		{"empty value reads as null (MissingNode)", []byte{}, nil, ErrNullOffset.Error()},
		{"whitespace reads as null", []byte(" \n"), nil, ErrNullOffset.Error()},
		{"garbage", []byte(`{"a":`), nil, "not JSON the converter reads: unexpected end of input"},
		{"trailing text ignored (FAIL_ON_TRAILING_TOKENS off)", []byte(`{"a":1}{}`), java.Object{{Name: "a", Value: json.Number("1")}}, ""},
		{"json null", []byte(`null`), nil, ErrNullOffset.Error()},
		{"array", []byte(`[1]`), nil, "not a JSON object: Offsets must be specified as a Map"},
		{"number", []byte(`5`), nil, "not a JSON object: Offsets must be specified as a Map"},
		{"UTF-8 BOM skipped (ByteSourceJsonBootstrapper)", []byte("\xef\xbb\xbf{\"a\":1}"), java.Object{{Name: "a", Value: json.Number("1")}}, ""},
		{"UTF-16LE detected", []byte("{\x00\"\x00a\x00\"\x00:\x001\x00}\x00"), java.Object{{Name: "a", Value: json.Number("1")}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOffset(tt.raw)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestParseJSON(t *testing.T) {
	tests := []struct {
		raw  string
		want any
		ok   bool
	}{
		{`1`, json.Number("1"), true},
		{` -1.5e+3 `, json.Number("-1.5e+3"), true},
		{`"x"`, "x", true},
		{`true`, true, true},
		{`null`, nil, true},
		{`[]`, []any{}, true},
		{`{}`, java.Object{}, true},
		{`{"b":1,"a":[true,null,"s"]}`, java.Object{{Name: "b", Value: json.Number("1")}, {Name: "a", Value: []any{true, nil, "s"}}}, true},
		{"\"\xff\"", "\uFFFD", true},
		{``, nil, false},
		{`1 2`, nil, false},
		{`{} x`, nil, false},
		{`[1,]`, nil, false},
		{`{"a":1,}`, nil, false},
		{`{1:2}`, nil, false},
		{`]`, nil, false},
		{`01`, nil, false},
		{`NaN`, nil, false},
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), nil, false},
	}
	for _, tt := range tests {
		got, err := java.ParseJSON([]byte(tt.raw))
		if (err == nil) != tt.ok {
			t.Errorf("ParseJSON(%q) error = %v, want ok=%v", tt.raw, err, tt.ok)
			continue
		}
		if tt.ok && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseJSON(%q) = %#v, want %#v", tt.raw, got, tt.want)
		}
	}
}

func TestValidateOffset(t *testing.T) {
	tests := []struct {
		name string
		o    java.Object
		want string
	}{
		{"nil", nil, ""},
		{"primitives", java.Object{{Name: "s", Value: "x"}, {Name: "n", Value: json.Number("1.5")}, {Name: "b", Value: true}, {Name: "z", Value: nil}, {Name: "i", Value: int64(1)}, {Name: "f", Value: 0.5}, {Name: "y", Value: []byte{1}}}, ""},
		{"map", java.Object{{Name: "ok", Value: 1}, {Name: "f", Value: java.Object{}}}, "Offsets may only contain primitive types as values, but field f contains MAP"},
		{"go map", java.Object{{Name: "m", Value: map[string]any{}}}, "Offsets may only contain primitive types as values, but field m contains MAP"},
		{"array", java.Object{{Name: "f", Value: []any{}}}, "Offsets may only contain primitive types as values, but field f contains ARRAY"},
		{"rune is an int32", java.Object{{Name: "c", Value: 'x'}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateOffset(tt.o)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("ValidateOffset = %q, want %q", got, tt.want)
			}
		})
	}
	err := ValidateOffset(java.Object{{Name: "c", Value: struct{}{}}})
	if err == nil || err.Error() != "Offsets may only contain primitive types as values, but field c contains struct {}" {
		t.Errorf("unknown type: %v", err)
	}
}

func TestPreview(t *testing.T) {
	tests := []struct {
		raw  string
		n    int
		want string
	}{
		{`["c",{"a":1}]`, 80, `["c",{"a":1}]`},
		{"", 10, ""},
		{"abc", 0, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"abcd", 1, "…"},
		{"a\nb\r\tc", 20, `a\nb\r\tc`},
		{"\x00\x1b[31m\x7f", 40, `\x00\x1b[31m\x7f`},
		{"ok\xff\xfe", 20, `ok\xff\xfe`},
		{"é\u2028\u202e😀", 40, `é\u2028\u202e😀`},
		{"\U000E0001", 20, `\U000e0001`},
		{"日本語", 6, "日本語"},
		{"日本語", 5, "日本…"},
		{"日本語", 4, "日…"},
		{"ab\n", 3, "ab…"}, // an escape is never split
		{"e\u0301e\u0301", 2, "e\u0301e\u0301"},
		{"\uFFFD", 5, "\uFFFD"},
	}
	for _, tt := range tests {
		got := Preview([]byte(tt.raw), tt.n)
		if got != tt.want {
			t.Errorf("Preview(%q, %d) = %q, want %q", tt.raw, tt.n, got, tt.want)
		}
		if !utf8.ValidString(got) || strings.ContainsAny(got, "\n\r\x00") {
			t.Errorf("Preview(%q) is not a clean line: %q", tt.raw, got)
		}
	}
}

func TestPreviewLongInput(t *testing.T) {
	raw := bytes.Repeat([]byte("x"), 1<<20)
	if got := Preview(raw, 10); got != "xxxxxxxxx…" {
		t.Errorf("got %q", got)
	}
}

func TestPretty(t *testing.T) {
	v, err := java.ParseJSON([]byte(`{"file":"a\u2028b/c","pos":9007199254740993,"o":{},"a":[1,{"x":null},[]],"t":true}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n" +
		"  \"file\": \"a\u2028b/c\",\n" +
		"  \"pos\": 9007199254740993,\n" +
		"  \"o\": {},\n" +
		"  \"a\": [\n" +
		"    1,\n" +
		"    {\n" +
		"      \"x\": null\n" +
		"    },\n" +
		"    []\n" +
		"  ],\n" +
		"  \"t\": true\n" +
		"}"
	if got := java.Pretty(v, "  "); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, tt := range []struct {
		v    any
		want string
	}{
		{nil, "null"},
		{java.Object(nil), "null"},
		{"😀\n", `"\uD83D\uDE00\n"`},
		{json.Number("1.50"), "1.50"},
		{map[string]any{"b": 1}, "{\n\t\"b\": 1\n}"},
	} {
		if got := java.Pretty(tt.v, "\t"); got != tt.want {
			t.Errorf("Pretty(%#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// randString returns up to max runes mixing ASCII, JSON specials, controls,
// non-ASCII BMP (incl. U+2028) and astral characters.
func randString(r *rand.Rand, max int) string {
	pool := []rune{'a', 'b', 'z', '0', ' ', '"', '\\', '/', '<', '&', '\n', '\t', 0, 0x1f, 0x7f,
		'é', 0x2028, 0x2029, '日', 0xFFFD, 0xFEFF, '😀', 0x10FFFF, 0x10000}
	n := r.IntN(max + 1)
	var b strings.Builder
	for i := 0; i < n; i++ {
		if r.IntN(4) == 0 {
			b.WriteRune(rune(r.IntN(0x30000)))
			continue
		}
		b.WriteRune(pool[r.IntN(len(pool))])
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

func randNumber(r *rand.Rand) json.Number {
	forms := []string{"0", "-0", "7", "-42", "9223372036854775807", "9007199254740993",
		"123456789012345678901234567890", "1.5", "-0.0", "1e20", "1E-5", "2.50e+3", "0.001"}
	if r.IntN(2) == 0 {
		return json.Number(forms[r.IntN(len(forms))])
	}
	return json.Number(fmt.Sprint(r.Int64() >> r.IntN(64)))
}

func randValue(r *rand.Rand, depth int) any {
	k := r.IntN(8)
	if depth > 2 && k >= 6 {
		k = r.IntN(6)
	}
	switch k {
	case 0, 1:
		return randString(r, 8)
	case 2, 3:
		return randNumber(r)
	case 4:
		return r.IntN(2) == 0
	case 5:
		return nil
	case 6:
		a := []any{}
		for i := r.IntN(4); i > 0; i-- {
			a = append(a, randValue(r, depth+1))
		}
		return a
	default:
		return randObject(r, depth+1)
	}
}

func randObject(r *rand.Rand, depth int) java.Object {
	o := java.Object{}
	for i := r.IntN(6); i > 0; i-- {
		o = append(o, java.Field{Name: randString(r, 5), Value: randValue(r, depth)})
	}
	return o
}

// Property: EncodeKey and ParseKey are inverses, field order included, and
// PartitionRaw is the writer's output for the partition.
func TestKeyRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		c := randString(r, 10)
		var o java.Object
		if r.IntN(10) > 0 {
			o = randObject(r, 0)
		}
		raw := java.EncodeKey(c, o)
		if !json.Valid(raw) {
			t.Fatalf("EncodeKey wrote invalid JSON: %s", raw)
		}
		k, err := ParseKey(raw)
		if err != nil {
			t.Fatalf("ParseKey(%s): %v", raw, err)
		}
		if k.Connector != c || !reflect.DeepEqual(k.Partition, dedupeNames(o)) {
			t.Fatalf("round trip of %s:\n got %q %#v\nwant %q %#v", raw, k.Connector, k.Partition, c, o)
		}
		if want := java.AppendJackson(nil, dedupeNames(o)); !bytes.Equal(k.PartitionRaw, want) {
			t.Fatalf("PartitionRaw = %s, want %s", k.PartitionRaw, want)
		}
		if !IsRESTCanonical(k, raw) && reflect.DeepEqual(java.HashMapOrder(o), o) && !hasNonCanonicalNumber(o) {
			t.Fatalf("%s is in HashMap order but not REST-canonical", raw)
		}
	}
}

// dedupeNames is what Jackson's ObjectNode makes of repeated names: the
// first position, the last value.
func dedupeNames(v any) java.Object {
	o, _ := dedupeValue(v).(java.Object)
	return o
}

func dedupeValue(v any) any {
	switch x := v.(type) {
	case java.Object:
		if x == nil {
			return x
		}
		out := java.Object{}
		for _, f := range x {
			out = out.Put(f.Name, dedupeValue(f.Value))
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = dedupeValue(e)
		}
		return out
	}
	return v
}

func hasNonCanonicalNumber(v any) bool {
	switch v := v.(type) {
	case java.Object:
		for _, f := range v {
			if hasNonCanonicalNumber(f.Value) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasNonCanonicalNumber(e) {
				return true
			}
		}
	case json.Number:
		return string(java.AppendJackson(nil, java.JavaNumber(string(v)))) != string(v)
	}
	return false
}

// Offsets above 2^53 must survive parse and re-encode byte for byte.
func TestLargeIntegersRoundTrip(t *testing.T) {
	for _, raw := range []string{
		`{"pos":9223372036854775807}`,
		`{"pos":9007199254740993}`,
		`{"pos":-9223372036854775808,"big":123456789012345678901234567890}`,
		`{"d":1.000000000000000000001,"e":1E400}`,
	} {
		o, err := ParseOffset([]byte(raw))
		if err != nil {
			t.Fatalf("ParseOffset(%s): %v", raw, err)
		}
		if got := string(java.AppendJackson(nil, o)); got != raw {
			t.Errorf("round trip: got %s, want %s", got, raw)
		}
	}
}
