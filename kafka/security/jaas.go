package security

import (
	"errors"
	"fmt"
	"strings"
)

// jaasEntry is the one login module a sasl.jaas.config value names, e.g.
// `org.apache.kafka.common.security.plain.PlainLoginModule required
// username="alice" password="s3cr\"et";`.
type jaasEntry struct {
	module  string
	options map[string]string
}

// Login modules koff understands, and the SASL family each serves.
var jaasModules = map[string]string{
	"org.apache.kafka.common.security.plain.PlainLoginModule": "PLAIN",
	"org.apache.kafka.common.security.scram.ScramLoginModule": "SCRAM",
}

// family is "PLAIN" or "SCRAM": the mechanisms a login module can serve.
func family(mechanism string) string {
	if strings.HasPrefix(mechanism, "SCRAM-") {
		return "SCRAM"
	}
	return mechanism
}

// shortModule is the class name without its package, for messages.
func shortModule(m string) string { return m[strings.LastIndexByte(m, '.')+1:] }

// parseJAAS reads a sasl.jaas.config value the way Kafka's JaasConfig does
// (java.io.StreamTokenizer): a module class, a control flag, key=value
// options whose values are words or "quoted" / 'quoted' strings with
// backslash escapes, a terminating ';', and // or /* */ comments. Kafka
// allows exactly one module here. Errors never quote values: they may be
// passwords.
func parseJAAS(s string) (jaasEntry, error) {
	tz := &jaasTokenizer{s: []rune(s)}
	var e jaasEntry
	tok, err := tz.next()
	if err != nil {
		return e, err
	}
	if tok.kind != tokWord {
		return e, errors.New("does not start with a login module class")
	}
	e.module = tok.text
	tok, err = tz.next()
	if err != nil {
		return e, err
	}
	switch strings.ToLower(tok.text) {
	case "required", "requisite", "sufficient", "optional":
	default:
		if tok.kind == tokEOF {
			return e, errors.New("login module control flag not specified (want e.g. required)")
		}
		return e, fmt.Errorf("invalid login module control flag after %s (want required, requisite, sufficient or optional)", shortModule(e.module))
	}
	e.options = map[string]string{}
	for {
		tok, err = tz.next()
		if err != nil {
			return e, err
		}
		if tok.kind == tokEOF {
			return e, errors.New("not terminated by a semicolon")
		}
		if tok.kind == tokSymbol && tok.text == ";" {
			break
		}
		if tok.kind != tokWord {
			return e, errors.New("expected an option name (key=value)")
		}
		key := tok.text
		if eq, err := tz.next(); err != nil {
			return e, err
		} else if eq.kind != tokSymbol || eq.text != "=" {
			return e, fmt.Errorf("value not specified for option %s", key)
		}
		val, err := tz.next()
		if err != nil {
			return e, err
		}
		if val.kind != tokWord && val.kind != tokQuoted {
			return e, fmt.Errorf("value not specified for option %s", key)
		}
		e.options[key] = val.text
	}
	tok, err = tz.next()
	if err != nil {
		return e, err
	}
	if tok.kind != tokEOF {
		return e, errors.New("must contain exactly one login module")
	}
	return e, nil
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokWord
	tokQuoted
	tokSymbol
)

type jaasToken struct {
	kind tokKind
	text string
}

type jaasTokenizer struct {
	s []rune
	i int
}

func (t *jaasTokenizer) next() (jaasToken, error) {
	if err := t.skipSpaceAndComments(); err != nil {
		return jaasToken{}, err
	}
	if t.i >= len(t.s) {
		return jaasToken{kind: tokEOF}, nil
	}
	c := t.s[t.i]
	switch {
	case c == '"' || c == '\'':
		return t.quoted(c)
	case isJAASWord(c):
		start := t.i
		for t.i < len(t.s) && isJAASWord(t.s[t.i]) {
			t.i++
		}
		return jaasToken{kind: tokWord, text: string(t.s[start:t.i])}, nil
	}
	t.i++
	return jaasToken{kind: tokSymbol, text: string(c)}, nil
}

// isJAASWord: StreamTokenizer's word and number characters plus the '-',
// '_' and '$' Kafka adds. Unlike Java, an unquoted value may start with a
// digit (Java would parse it as a number and reject it).
func isJAASWord(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '-' || c == '_' || c == '$' || c >= 0xA0
}

func (t *jaasTokenizer) skipSpaceAndComments() error {
	for t.i < len(t.s) {
		c := t.s[t.i]
		switch {
		case c <= ' ':
			t.i++
		case c == '/' && t.at(1) == '/':
			for t.i < len(t.s) && t.s[t.i] != '\n' && t.s[t.i] != '\r' {
				t.i++
			}
		case c == '/' && t.at(1) == '*':
			t.i += 2
			for t.i < len(t.s) && (t.s[t.i] != '*' || t.at(1) != '/') {
				t.i++
			}
			if t.i >= len(t.s) {
				return errors.New("unterminated /* comment")
			}
			t.i += 2
		default:
			return nil
		}
	}
	return nil
}

func (t *jaasTokenizer) at(off int) rune {
	if t.i+off < len(t.s) {
		return t.s[t.i+off]
	}
	return 0
}

// quoted reads a quoted string with StreamTokenizer's escapes: \a \b \f
// \n \r \t \v, octal \0-\377, and a backslash before anything else stands
// for that character (\" and \\ included).
func (t *jaasTokenizer) quoted(q rune) (jaasToken, error) {
	t.i++
	var b strings.Builder
	for t.i < len(t.s) {
		c := t.s[t.i]
		t.i++
		switch {
		case c == q:
			return jaasToken{kind: tokQuoted, text: b.String()}, nil
		case c == '\n' || c == '\r':
			return jaasToken{}, errors.New("a quoted value runs to the end of a line")
		case c != '\\':
			b.WriteRune(c)
		case t.i >= len(t.s):
			return jaasToken{}, errors.New("a quoted value is not closed")
		default:
			b.WriteRune(t.escape())
		}
	}
	return jaasToken{}, errors.New("a quoted value is not closed")
}

func (t *jaasTokenizer) escape() rune {
	c := t.s[t.i]
	t.i++
	switch c {
	case 'a':
		return 7
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'v':
		return '\v'
	}
	if c < '0' || c > '7' {
		return c
	}
	// Up to three octal digits, at most \377, as StreamTokenizer reads them.
	v, max := c-'0', 2
	if c > '3' {
		max = 1
	}
	for ; max > 0 && t.i < len(t.s) && t.s[t.i] >= '0' && t.s[t.i] <= '7'; max-- {
		v = v*8 + t.s[t.i] - '0'
		t.i++
	}
	return v
}
