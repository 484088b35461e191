package java

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestEncodeKey(t *testing.T) {
	tests := []struct {
		name      string
		connector string
		p         Object
		want      string
	}{
		{"debezium", "inventory-connector", Object{{"server", "dbserver1"}}, `["inventory-connector",{"server":"dbserver1"}]`},
		{"null partition", "my-connector", nil, `["my-connector",null]`},
		{"empty partition", "c", Object{}, `["c",{}]`},
		{"field order kept", "c", Object{{"z", json.Number("1")}, {"a", true}, {"m", nil}}, `["c",{"z":1,"a":true,"m":null}]`},
		{"mirror maker", "MirrorSourceConnector", Object{{"cluster", "primary"}, {"partition", 3}, {"topic", "orders"}},
			`["MirrorSourceConnector",{"cluster":"primary","partition":3,"topic":"orders"}]`},
		{"escaped connector", "a\"b\\c", Object{{"f", "/tmp/x"}}, `["a\"b\\c",{"f":"/tmp/x"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(EncodeKey(tt.connector, tt.p)); got != tt.want {
				t.Errorf("EncodeKey = %s, want %s", got, tt.want)
			}
		})
	}
}

// The research file's hex dump of what Connect's JsonConverter writes.
func TestEncodeKeyHexDump(t *testing.T) {
	want := "5b 22 63 22 2c 7b 22 66 22 3a 22 c3 a9 e2 80 a8 5c 75 44 38 33 44 5c 75 44 45 30 30 7f 22 7d 5d"
	got := EncodeKey("c", Object{{"f", "é\u2028😀\x7f"}})
	var parts []string
	for _, b := range got {
		parts = append(parts, hex.EncodeToString([]byte{b}))
	}
	if g := strings.Join(parts, " "); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
}

func TestAppendJacksonStrings(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", `""`},
		{"plain", `"plain"`},
		{`"`, `"\""`},
		{`\`, `"\\"`},
		{"/", `"/"`},
		{"<>&'", `"<>&'"`},
		{"\b\t\n\f\r", `"\b\t\n\f\r"`},
		{"\x00\x01\x0b\x1f", `"\u0000\u0001\u000B\u001F"`},
		{"\x1a", `"\u001A"`},
		{"\x7f", "\"\x7f\""},
		{"\u0080\u00e9\u2028\u2029\uffff", "\"\u0080\u00e9\u2028\u2029\uffff\""},
		{"😀", `"\uD83D\uDE00"`},
		{"a\U0010FFFFb", `"a\uDBFF\uDFFFb"`},
		{"\U00010000", `"\uD800\uDC00"`},
		{"bad\xffutf8\xc3", "\"bad\uFFFDutf8\uFFFD\""},
		{"\xed\xa0\x80", `"\uD800"`}, // a lone surrogate in its 3-byte form (as readJackson keeps it): escaped, as Jackson writes a Java string holding it
	}
	for _, tt := range tests {
		if got := string(AppendJackson(nil, tt.in)); got != tt.want {
			t.Errorf("AppendJackson(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// Doubles and floats as Java's Double.toString/Float.toString (JDK 19+)
// print them; NaN and infinities as Jackson's default quoted strings.
func TestAppendJacksonFloats(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{1.0, "1.0"},
		{1e20, "1.0E20"},
		{0.1, "0.1"},
		{1e-5, "1.0E-5"},
		{123456789.0, "1.23456789E8"},
		{1e7, "1.0E7"},
		{9999999.0, "9999999.0"},
		{0.001, "0.001"},
		{0.000999, "9.99E-4"},
		{100.0, "100.0"},
		{1234.5, "1234.5"},
		{-2.5, "-2.5"},
		{0.0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{4.9e-324, "4.9E-324"}, // Java prefers the closer 2-digit form
		{math.MaxFloat64, "1.7976931348623157E308"},
		{2e23, "2.0E23"},
		{math.NaN(), `"NaN"`},
		{math.Inf(1), `"Infinity"`},
		{math.Inf(-1), `"-Infinity"`},
		{float32(0.1), "0.1"},
		{float32(1e10), "1.0E10"},
		{float32(1.4e-45), "1.4E-45"},
		{float32(math.MaxFloat32), "3.4028235E38"},
		{float32(16777216), "1.6777216E7"},
	}
	for _, tt := range tests {
		if got := string(AppendJackson(nil, tt.in)); got != tt.want {
			t.Errorf("AppendJackson(%T %v) = %s, want %s", tt.in, tt.in, got, tt.want)
		}
	}
}

func TestAppendJacksonScalars(t *testing.T) {
	type custom struct{ A int }
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, "null"},
		{"true", true, "true"},
		{"false", false, "false"},
		{"int", -42, "-42"},
		{"int32", int32(math.MinInt32), "-2147483648"},
		{"int64", int64(math.MaxInt64), "9223372036854775807"},
		{"uint64", uint64(math.MaxUint64), "18446744073709551615"},
		{"number verbatim", json.Number("1.50e+2"), "1.50e+2"},
		{"empty number", json.Number(""), "0"},
		{"invalid number", json.Number("0x1"), `"0x1"`},
		{"bytes", []byte{1, 2, 3}, `"AQID"`},
		{"empty bytes", []byte{}, `""`},
		{"nil bytes", []byte(nil), "null"},
		{"nil object", Object(nil), "null"},
		{"nil array", []any(nil), "null"},
		{"nil map", map[string]any(nil), "null"},
		{"array", []any{json.Number("1"), "a", nil, []any{}, Object{}}, `[1,"a",null,[],{}]`},
		{"nested", Object{{"o", Object{{"a", []any{true}}}}}, `{"o":{"a":[true]}}`},
		{"map in hash map order", map[string]any{"table": "t1", "database": "db", "schema": "public", "a": 1},
			`{"schema":"public","a":1,"database":"db","table":"t1"}`},
		{"other type", custom{7}, `"{7}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(AppendJackson(nil, tt.in)); got != tt.want {
				t.Errorf("AppendJackson = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestAppendJacksonAppends(t *testing.T) {
	if got := string(AppendJackson([]byte("x="), "v")); got != `x="v"` {
		t.Errorf("got %s", got)
	}
}
