package security

import (
	"strings"
	"testing"
)

const plainModule = "org.apache.kafka.common.security.plain.PlainLoginModule"

func TestParseJAAS(t *testing.T) {
	tests := []struct {
		name, in string
		want     map[string]string
	}{
		{"quoted", plainModule + ` required username="alice" password="s3cr3t";`, map[string]string{"username": "alice", "password": "s3cr3t"}},
		{"escaped quote", plainModule + ` required username="alice" password="s3cr\"et";`, map[string]string{"username": "alice", "password": `s3cr"et`}},
		{"escaped backslash", plainModule + ` required username="alice" password="a\\b";`, map[string]string{"username": "alice", "password": `a\b`}},
		{"single quotes", plainModule + ` required username='alice' password='it"s';`, map[string]string{"username": "alice", "password": `it"s`}},
		{"unquoted words", plainModule + ` required username=alice password=pa$$-wo_rd.1;`, map[string]string{"username": "alice", "password": "pa$$-wo_rd.1"}},
		{"control flag case", plainModule + ` REQUIRED username="a" password="b";`, map[string]string{"username": "a", "password": "b"}},
		{"other flags", plainModule + ` sufficient username="a";`, map[string]string{"username": "a"}},
		{"spacing and newlines", "  " + plainModule + "\n\trequired\n username = \"a\"\n password=\"b\" ; ", map[string]string{"username": "a", "password": "b"}},
		{"comments", plainModule + ` required /* who */ username="a" // the user` + "\n" + `password="b";`, map[string]string{"username": "a", "password": "b"}},
		{"escapes", plainModule + ` required password="t\tn\nq\101\60z";`, map[string]string{"password": "t\tn\nqA0z"}},
		{"no options", plainModule + ` required;`, map[string]string{}},
		{"unicode", plainModule + ` required username="zoë" password="pässwörd";`, map[string]string{"username": "zoë", "password": "pässwörd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := parseJAAS(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if e.module != plainModule {
				t.Errorf("module %q", e.module)
			}
			if len(e.options) != len(tt.want) {
				t.Errorf("options %q, want %q", e.options, tt.want)
			}
			for k, v := range tt.want {
				if e.options[k] != v {
					t.Errorf("%s = %q, want %q", k, e.options[k], v)
				}
			}
		})
	}
}

func TestParseJAASErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{plainModule + ` required username="alice" password="s3cr3t"`, "not terminated by a semicolon"},
		{plainModule + ` required password="s3cr3t"; ` + plainModule + ` required;`, "exactly one login module"},
		{plainModule + ` mandatory password="s3cr3t";`, "invalid login module control flag"},
		{plainModule, "control flag not specified"},
		{plainModule + ` required password=;`, "value not specified for option password"},
		{plainModule + ` required password "s3cr3t";`, "value not specified for option password"},
		{plainModule + ` required password="s3cr3t;`, "quoted value is not closed"},
		{plainModule + ` required password="s3cr` + "\n" + `3t";`, "runs to the end of a line"},
		{plainModule + ` required /* password="s3cr3t";`, "unterminated /* comment"},
		{`="s3cr3t";`, "does not start with a login module"},
		{plainModule + ` required ="s3cr3t";`, "expected an option name"},
	}
	for _, tt := range tests {
		_, err := parseJAAS(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.in, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), "s3cr") {
			t.Errorf("error quotes the password: %v", err)
		}
	}
}
