package rest

import (
	"encoding/json"
	"strings"
	"testing"

	"koff/model"
	"koff/model/java"
)

const loc = "\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); "

// TestDecodeOffsetsErrors checks bodies Connect rejects before looking at
// the connector, with OffsetsApiIntegrationTest's cases among them.
func TestDecodeOffsetsErrors(t *testing.T) {
	const need = "Partitions / offsets need to be provided for an alter offsets request"
	const npe = `Cannot invoke "org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets.offsets()" because "offsets" is null`
	for _, tc := range []struct {
		body string
		code int
		msg  string // exact, or a prefix when it ends in "…"
	}{
		{``, 500, npe},
		{"  \n", 500, npe},
		{`null`, 500, npe},
		{`{}`, 400, need},
		{`{"offsets":[]}`, 400, need},
		{`{"offsets":null}`, 400, need},
		{`[]`, 500, "Cannot deserialize value of type `org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets` from Array value (token `JsonToken.START_ARRAY`)" + loc + "line: 1, column: 1]"},
		{`{"key": []}`, 500, `Unrecognized field "key" (class org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets), not marked as ignorable (one known property: "offsets"])` +
			loc + `line: 1, column: 2] (through reference chain: org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets["key"])`},
		{`{"offsets": {}}`, 500, "Cannot deserialize value of type `java.util.ArrayList<org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset>` from Object value (token `JsonToken.START_OBJECT`)…"},
		{`{"offsets": [123]}`, 500, "Cannot construct instance of `org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset` (although at least one Creator exists): no int/Int-argument constructor/factory method to deserialize from Number value (123)" +
			loc + `line: 1, column: 14] (through reference chain: org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets["offsets"]->java.util.ArrayList[0])`},
		{`{"offsets": [{"key": "val"}]}`, 500, `Unrecognized field "key" (class org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset), not marked as ignorable (2 known properties: "partition", "offset"])…`},
		// Invalid JSON after the mismatch: Jackson reports the mismatch.
		{`{"offsets": [{"partition": []]}]}`, 500, "Cannot deserialize value of type `java.util.LinkedHashMap<java.lang.String,java.lang.Object>` from Array value (token `JsonToken.START_ARRAY`)…"},
		{`{"offsets": [{"partition": "x"}]}`, 500, "Cannot construct instance of `java.util.LinkedHashMap` (although at least one Creator exists): no String-argument constructor/factory method to deserialize from String value ('x')…"},
		{`{"offsets": [{"partition": {}, "offset": 5}]}`, 500, "Cannot deserialize value of type `java.util.LinkedHashMap<java.lang.String,java.lang.Object>` from Integer value (token `JsonToken.VALUE_NUMBER_INT`)…"},
		{`{"offsets": [null]}`, 500, `Cannot invoke "org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset.partition()" because "offset" is null`},
		{`not json`, 500, "Unrecognized token 'not': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')" + loc + "line: 1, column: 1]"},
		{`{"offsets": [tru]}`, 500, "Unrecognized token 'tru'…"},
		{`{"offsets" []}`, 500, "Unexpected character ('[' (code 91)): was expecting a colon to separate field name and value…"},
		{`{x}`, 500, "Unexpected character ('x' (code 120)): was expecting double-quote to start field name…"},
		{`{"offsets": [{"partition": {}}`, 500, "Unexpected end-of-input: expected close marker for Array (start marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 13])…"},
		{`{"offsets": [{"partition": {"a": "b`, 500, "Unexpected end-of-input: was expecting closing quote for a string value…"},
		{`{"offsets": [{"partition": {"a":`, 500, "Unexpected end-of-input within/between Object entries" + loc + "line: 1, column: 33]"},
		{`{"offsets": [{"partition": {}},`, 500, "Unexpected end-of-input within/between Array entries…"},
	} {
		_, e := decodeOffsets([]byte(tc.body))
		if e == nil {
			t.Errorf("%q: accepted", tc.body)
			continue
		}
		want, prefix := strings.CutSuffix(tc.msg, "…")
		if e.Code != tc.code || (prefix && !strings.HasPrefix(e.Message, want)) || (!prefix && e.Message != want) {
			t.Errorf("%q:\n got %d %q\nwant %d %q", tc.body, e.Code, e.Message, tc.code, tc.msg)
		}
	}
}

func TestDecodeOffsets(t *testing.T) {
	// Duplicates collapse as in ConnectorOffsets.toMap (a HashMap keyed by
	// content): the first map, the last offset. Trailing content is ignored,
	// as Jackson stops after the first value.
	edits, e := decodeOffsets([]byte(`{"offsets":[
		{"partition":{"a":1,"b":"x"},"offset":{"n":1}},
		{"partition":{"z":[1,{"q":2}]}},
		{"partition":{"b":"x","a":1},"offset":{"n":2}},
		{"partition":null,"offset":{"n":3}}]} trailing`))
	if e != nil {
		t.Fatal(e)
	}
	var got []string
	for _, ed := range edits {
		got = append(got, string(java.AppendJackson(nil, ed.partition))+"="+string(java.AppendJackson(nil, ed.offset)))
	}
	want := []string{`{"a":1,"b":"x"}={"n":2}`, `{"z":[1,{"q":2}]}=null`, `null={"n":3}`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("edits = %v, want %v", got, want)
	}
}

func TestParseVersionAndRoutes(t *testing.T) {
	for _, tc := range []struct {
		version      string
		stop, get    bool
		patch, reset bool
	}{
		{"3.9.0", true, true, true, true},
		{"3.6.1-ce", true, true, true, true},
		{"3.5.2", true, true, false, false},
		{"3.4.0", false, false, false, false},
		{"2.8.1", false, false, false, false},
		{"trunk", true, true, true, true}, // unparseable: the newest
	} {
		s := &Server{}
		s.major, s.minor = parseVersion(tc.version)
		stop, _, ok := s.route([]string{"connectors", "x", "stop"})
		if ok != tc.stop || (ok && stop["PUT"] == nil) {
			t.Errorf("%s: stop route = %v", tc.version, ok)
		}
		off, _, ok := s.route([]string{"connectors", "x", "offsets"})
		if ok != tc.get || (off["PATCH"] != nil) != tc.patch || (off["DELETE"] != nil) != tc.reset {
			t.Errorf("%s: offsets route = %v, methods %v", tc.version, ok, off)
		}
	}
}

func TestJavaString(t *testing.T) {
	v, err := java.ParseJSON(model.RESTValue(java.Object{{Name: "topic", Value: "orders"}, {Name: "partition", Value: json.Number("3")},
		{Name: "cluster", Value: "primary"}, {Name: "x", Value: []any{true, nil, java.Object{{Name: "f", Value: json15()}}}}}))
	if err != nil {
		t.Fatal(err)
	}
	// HashMap order and Java's toString.
	if got, want := javaString(v), "{cluster=primary, partition=3, x=[true, null, {f=1.5}], topic=orders}"; got != want {
		t.Errorf("javaString = %q, want %q", got, want)
	}
}

func json15() any { v, _ := java.ParseJSON([]byte(`1.50`)); return v }
