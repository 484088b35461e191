package model

import (
	"testing"
)

func TestIsRESTCanonical(t *testing.T) {
	tests := []struct {
		raw  string
		want bool
	}{
		{`["inventory-connector",{"server":"dbserver1"}]`, true},
		{`["inventory-connector", {"server": "dbserver1"}]`, false},
		{`["my-connector",{"schema":"public","a":1,"database":"db","table":"t1"}]`, true},
		{`["my-connector",{"table":"t1","database":"db","schema":"public","a":1}]`, false},
		{`["c",null]`, true},
		{`["c", null]`, false},
		{`["c",{}]`, true},
		{`["c",{"f":"\u00e9"}]`, false}, // Jackson writes é raw
		{`["c",{"f":"é"}]`, true},
		{`["c",{"f":"a\/b"}]`, false},
		{`["c",{"p":1.5}]`, true},
		{`["c",{"p":1.50}]`, false}, // read back as Double 1.5
		{`["c",{"p":1e2}]`, false},  // Double 100.0
		{`["c",{"p":100.0}]`, true},
		{`["c",{"p":-0}]`, false}, // Long 0
		{`["c",{"p":9223372036854775807}]`, true},
		{`["c",{"p":9223372036854775808}]`, false}, // BigInteger.longValue wraps
		{`["c",{"p":1,"p":2}]`, false},
	}
	for _, tt := range tests {
		k, err := ParseKey([]byte(tt.raw))
		if err != nil {
			t.Fatalf("ParseKey(%s): %v", tt.raw, err)
		}
		if got := IsRESTCanonical(k, []byte(tt.raw)); got != tt.want {
			t.Errorf("IsRESTCanonical(%s) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}
