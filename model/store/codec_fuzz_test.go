package store

import (
	"bytes"
	"reflect"
	"testing"

	"koff/model"
	"koff/model/java"
)

var keySeeds = []string{
	`["inventory-connector",{"server":"dbserver1"}]`,
	`["inventory-connector", {"server": "dbserver1"}]`,
	`["my-connector",null]`,
	`["c",{}]`,
	`["c",{"f":"é` + "\u2028" + `\uD83D\uDE00` + "\x7f" + `"}]`,
	`["a\"\\\/\b\f\n\r\t\u0000",{"k":[1,{"x":null}],"k":-0.0e-0}]`,
	`["c",{"p":9223372036854775808,"d":1E400}]`,
	`["c",{"s":"\ud800"}]`,
	`[]`, `["c"]`, `[1,{}]`, `["c",1]`, `{"a":1}`, `["c",{}`, "\xff", "",
}

// FuzzParseKey: ParseKey never panics, and a parsed key re-encoded with
// EncodeKey parses back to the same key (the writer's output is a fixed
// point of the parser), and the Store's plain-form reading of a key agrees
// with the parse.
func FuzzParseKey(f *testing.F) {
	for _, s := range keySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkKeyFacts(t, string(raw)) // the Store's plain-form reading says what the parse says
		k, err := model.ParseKey(raw)
		_ = model.Preview(raw, 40)
		if err != nil {
			return
		}
		enc := java.EncodeKey(k.Connector, k.Partition)
		k2, err := model.ParseKey(enc)
		if err != nil {
			t.Fatalf("re-encoded key %s does not parse: %v", enc, err)
		}
		if k2.Connector != k.Connector || !reflect.DeepEqual(k2.Partition, k.Partition) {
			t.Fatalf("unstable: %q → %s → %#v", raw, enc, k2)
		}
		if !bytes.Equal(k2.PartitionRaw, java.AppendJackson(nil, k.Partition)) {
			t.Fatalf("PartitionRaw %s is not the writer's output", k2.PartitionRaw)
		}
		if !bytes.Equal(java.EncodeKey(k2.Connector, k2.Partition), enc) {
			t.Fatalf("encoding is not stable for %s", enc)
		}
		model.IsRESTCanonical(k, raw)
		_ = java.Pretty(k.Partition, "  ")
	})
}

// FuzzParseOffset: ParseOffset never panics, and a parsed value re-encoded
// parses back to the same Object.
func FuzzParseOffset(f *testing.F) {
	for _, s := range []string{
		`{"ts_sec":1530168941,"file":"mysql-bin.000004","pos":3261,"row":1,"snapshot":false,"gtids":null}`,
		`{"pos":9223372036854775807,"x":9007199254740993}`,
		`{"a":{"b":[1,2]},"c":"\uD83D\uDE00"}`,
		`{}`, `null`, `[1]`, `{"a":1}x`, `{"a":`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, err := model.ParseOffset(raw)
		if err != nil || o == nil {
			return
		}
		_ = model.ValidateOffset(o)
		_ = java.Pretty(o, " ")
		enc := java.AppendJackson(nil, o)
		o2, err := model.ParseOffset(enc)
		if err != nil {
			t.Fatalf("re-encoded value %s does not parse: %v", enc, err)
		}
		if !reflect.DeepEqual(o2, o) {
			t.Fatalf("unstable: %q → %s → %#v", raw, enc, o2)
		}
		_ = java.HashMapOrder(o)
	})
}
