package java

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Field is one member of a JSON object, in the order it was written.
type Field struct {
	Name  string
	Value any
}

// Object is a JSON object that keeps its field order. Field order matters in
// Connect: the worker matches offset keys byte for byte.
//
// Values inside an Object (and inside []any) are one of: Object, []any,
// string, json.Number, bool, or nil. Numbers are never float64, so offsets
// above 2^53 survive.
type Object []Field

// Get returns the value of the named field and whether it exists.
func (o Object) Get(name string) (any, bool) {
	for _, f := range o {
		if f.Name == name {
			return f.Value, true
		}
	}
	return nil, false
}

// ParseJSON parses one JSON value, keeping object field order. Results are
// Object, []any, string, json.Number, bool or nil; an empty object or array
// is non-nil. Anything but whitespace after the value is an error.
// Escaped lone surrogates (\ud800) become U+FFFD, as Go strings cannot
// hold them.
func ParseJSON(raw []byte) (any, error) {
	// json.Valid first: it is strict and caps nesting at 10000 levels, which
	// bounds the recursion below for hostile records.
	if !json.Valid(raw) {
		return nil, errors.New("invalid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	v, err := parseValue(dec, tok)
	if err != nil {
		return nil, err
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("unexpected %v after JSON value", tok)
		}
		return nil, err
	}
	return v, nil
}

func parseValue(dec *json.Decoder, tok json.Token) (any, error) {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := Object{}
			for dec.More() {
				name, err := dec.Token()
				if err != nil {
					return nil, err
				}
				s, ok := name.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", name)
				}
				v, err := nextValue(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, Field{Name: s, Value: v})
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := nextValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil // string, json.Number, bool or nil
	}
}

func nextValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	return parseValue(dec, tok)
}
