package security

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseProperties(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Property
	}{
		{"equals", "a=b", []Property{{"a", "b", 1}}},
		{"colon", "a: b", []Property{{"a", "b", 1}}},
		{"space", "a b", []Property{{"a", "b", 1}}},
		{"spaces around equals", "  a  =  b", []Property{{"a", "b", 1}}},
		{"tab and form feed", "\ta\f=\tb", []Property{{"a", "b", 1}}},
		{"only one separator skipped", "a=:b", []Property{{"a", ":b", 1}}},
		{"colon then equals", "a:=b", []Property{{"a", "=b", 1}}},
		{"space then separator", "a = = b", []Property{{"a", "= b", 1}}},
		{"trailing whitespace kept", "a=b  ", []Property{{"a", "b  ", 1}}},
		{"empty value", "a=", []Property{{"a", "", 1}}},
		{"key only", "a", []Property{{"a", "", 1}}},
		{"comments and blanks", "# one\n! two\n   # indented\n\n \t \na=b", []Property{{"a", "b", 6}}},
		{"hash inside value", "a=b#c", []Property{{"a", "b#c", 1}}},
		{"continuation", "a=one \\\n    two\nb=c", []Property{{"a", "one two", 1}, {"b", "c", 3}}},
		{"continuation over lines", "a=x\\\n  y\\\n  z", []Property{{"a", "xyz", 1}}},
		{"even backslashes do not continue", "a=x\\\\\nb=y", []Property{{"a", `x\`, 1}, {"b", "y", 2}}},
		{"continued comment-looking line is value", "a=x\\\n  # not a comment", []Property{{"a", "x# not a comment", 1}}},
		{"comment line does not continue", "# c \\\na=b", []Property{{"a", "b", 2}}},
		{"backslash at the very end", "a=b\\", []Property{{"a", "b", 1}}},
		{"escapes", `a=tab\there\nnl\rcr\fff`, []Property{{"a", "tab\there\nnl\rcr\fff", 1}}},
		{"other escapes stand for the character", `a=\"q\" \\ \z \=`, []Property{{"a", `"q" \ z =`, 1}}},
		{"unicode escape", `a=caf\u00e9 \u00E9`, []Property{{"a", "café é", 1}}},
		{"surrogate pair", `a=\uD83D\uDE00`, []Property{{"a", "😀", 1}}},
		{"raw UTF-8", "a=café", []Property{{"a", "café", 1}}},
		{"escaped separators in key", `my\:key=v` + "\n" + `my\ key v` + "\n" + `k\=x=y`, []Property{{"my:key", "v", 1}, {"my key", "v", 2}, {"k=x", "y", 3}}},
		{"CRLF and CR", "a=1\r\nb=2\rc=3", []Property{{"a", "1", 1}, {"b", "2", 2}, {"c", "3", 3}}},
		{"continuation with CRLF", "a=1\\\r\n  2", []Property{{"a", "12", 1}}},
		{"duplicates kept in order", "a=1\na=2", []Property{{"a", "1", 1}, {"a", "2", 2}}},
		{"jaas value escapes survive", `sasl.jaas.config=M required password="s3cr\\"et";`, []Property{{"sasl.jaas.config", `M required password="s3cr\"et";`, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseProperties(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParsePropertiesErrors(t *testing.T) {
	tests := []struct {
		text string
		line int
		key  string
	}{
		{`a=\u12G4`, 1, "a"},
		{"a=1\nb=\\u12", 2, "b"},
		{`k\uZZZZ=1`, 1, ""},
		{"x=1\ny=a\\\n  \\u00", 2, "y"},
	}
	for _, tt := range tests {
		_, err := ParseProperties(tt.text)
		var pe *PropertyError
		if !errors.As(err, &pe) {
			t.Fatalf("%q: err = %v, want *PropertyError", tt.text, err)
		}
		if pe.Line != tt.line || pe.Key != tt.key {
			t.Errorf("%q: line %d key %q, want line %d key %q (%v)", tt.text, pe.Line, pe.Key, tt.line, tt.key, err)
		}
	}
}
