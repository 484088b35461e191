package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Class 21.7: a bad import file says where (line and column, or the JSON
// path of the value of the wrong shape), in one line, never a Go type;
// nothing is planned.
func TestABadImportFileSaysWhere(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ file, want string }{
		{`[1,2]`, `not a koff export: $ is an array, not an object keyed by connector`},
		{`{"a":{"offsets":{"partition":1}}}`, `$["a"].offsets is an object, not an array of {"partition":…,"offset":…}`},
		{`{"a":{"offsets":[{"partition":{"t":1},"offset":{"x":1}},]}}`, `not a koff export: line 1, column 57: invalid character ']'`},
		{"{\"a\":{\"offsets\":[\n  {\"partition\":{\"t\":1},\n", `not a koff export: line 3, column 1: the file ends inside a JSON value`},
		{`{"a":{"offsets":[{"partition":{"t":1},"offset":{"x":1}}, 7]}}`, `$["a"].offsets[1] is a number, not {"partition":…,"offset":…}`},
		{`{"a":{"offsets":[{"partition":"x","offset":{}}]}}`, `$["a"].offsets[0]: partition must be a JSON object`},
		{`{"a":{"offsets":[{"partition":{"t":1},"offset":{"x":1}}]}} {"b":1}`, `line 1, column 60: more after the export's object`},
		{``, `not a koff export: the file is empty`},
	} {
		f := filepath.Join(dir, "export.json")
		if err := os.WriteFile(f, []byte(tt.file), 0o600); err != nil {
			t.Fatal(err)
		}
		_, errs, code := koff(t, withAudit(t, "import", f, "-b", "127.0.0.1:1", "--dry-run")...)
		if code == 0 || !strings.Contains(errs, tt.want) || strings.Count(errs, "\n") != 1 ||
			strings.Contains(errs, "Go ") || strings.Contains(errs, "struct") || strings.Contains(errs, "RawMessage") {
			t.Errorf("import %q: exit %d %q, want %q", tt.file, code, errs, tt.want)
		}
	}
}
