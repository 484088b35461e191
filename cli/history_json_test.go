package cli

import (
	"encoding/json"
	"testing"
	"time"
)

// validJSON agrees with encoding/json on what is one JSON value: history
// writes a stored value as it is only when it is.
func FuzzValidJSONAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`{"lsn":1}`, `{"a":-0.0,"b":1E+2,"c":[true,false,null]}`, ` {"x":"\u00e9\n"} `, `{"a":01}`,
		`{"a":1.}`, `{"a":"\x"}`, `{"a" 1}`, `[1,]`, `{}`, `[]`, `"\ud800"`, "\"\x01\"", `nul`, `{"a":1}}`, "\"\xff\"", ``, `-`, `1e`, `{"a":[{"b":{}}]}`,
		// Eight bytes at a time: runs of string bytes and digits, each with
		// one byte that ends or spoils them at every place of a word.
		`{"abcdefghijklmnopq":12345678901234567890.12345678901e12345678901}`, "\"abcdefg\x1fhijklmnop\"", "\"abcdefgh\x7fijklmnop\"",
		`"abcdefg\"hijklmnop"`, `"abcdefgh\u00e9ijklmnop"`, `"abcdefg\qhijklmnop"`, "\"ééééééééé\xff\xfe\"", `12345678901234567a`,
		`123456789012345678901234567890`, `-0.12345678901234567E+12345678`, `"abcdefghijklmnopqrstuvwxyz`, `1234567/89`, "1234567\xb089",
		`"abcdefghijklmnop"`, `"a!#$%&'()*+,-./0123456789:;<=>?@[]^_{|}~"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}

func TestHistoryTimeIsRFC3339InUTCToTheMillisecond(t *testing.T) {
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 11, 29, 2, 3, 4, 5_000_000, time.UTC), "2026-11-29T02:03:04.005Z"},
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600)), "1969-12-31T23:00:00.000Z"},
		{time.UnixMilli(1796297652877), time.UnixMilli(1796297652877).UTC().Format("2006-01-02T15:04:05.000Z")},
	} {
		if got := historyTime(tc.in); got != tc.want {
			t.Errorf("historyTime(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
