package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"koff/model/java"
)

// offsetEdit is one entry of a PATCH body: a partition map (nil for JSON
// null) and its new offset (nil resets it).
type offsetEdit struct {
	partition java.Object
	offset    java.Object
}

// Java names in Jackson's messages.
const (
	javaOffsets   = "org.apache.kafka.connect.runtime.rest.entities.ConnectorOffsets"
	javaOffset    = "org.apache.kafka.connect.runtime.rest.entities.ConnectorOffset"
	javaOffsetsTy = "java.util.ArrayList<" + javaOffset + ">"
	javaMapTy     = "java.util.LinkedHashMap<java.lang.String,java.lang.Object>"
)

// decodeOffsets does what Connect does with a PATCH body before it asks the
// herder anything: Jackson maps it onto ConnectorOffsets, then
// ConnectorsResource checks that it lists offsets and turns it into a map.
//
// Any error here is a 500 carrying Jackson's (or the JVM's) message, except
// a missing or empty "offsets" list, which is Connect's own 400. Jackson
// reads the body as a stream, so the first problem in document order is the
// one reported, and anything after the first JSON value is ignored.
// Messages follow Jackson 2.16 (Connect 3.9); their "at [Source: …]"
// locations are approximate.
func decodeOffsets(body []byte) ([]offsetEdit, *restError) {
	d := &bodyDecoder{body: body, dec: json.NewDecoder(bytes.NewReader(body))}
	d.dec.UseNumber()
	list, isNull, e := d.document()
	if e != nil {
		return nil, e
	}
	if isNull {
		// JacksonJsonProvider reads an empty body (or null) as a null
		// entity, and ConnectorsResource calls offsets.offsets() on it.
		return nil, errorf(http.StatusInternalServerError,
			`Cannot invoke "%s.offsets()" because "offsets" is null`, javaOffsets)
	}
	if len(list) == 0 {
		return nil, errorf(http.StatusBadRequest, "Partitions / offsets need to be provided for an alter offsets request")
	}
	// ConnectorOffsets.toMap: a HashMap keyed by partition content, so a
	// repeated partition keeps its first map and its last offset.
	var edits []offsetEdit
	index := map[string]int{}
	for _, o := range list {
		if o == nil {
			return nil, errorf(http.StatusInternalServerError,
				`Cannot invoke "%s.partition()" because "offset" is null`, javaOffset)
		}
		id := contentID(o.partition)
		if i, ok := index[id]; ok {
			edits[i].offset = o.offset
			continue
		}
		index[id] = len(edits)
		edits = append(edits, *o)
	}
	return edits, nil
}

// bodyDecoder walks a PATCH body token by token, as Jackson's
// deserialisers do, to report the first mismatch where Jackson would.
type bodyDecoder struct {
	body     []byte
	dec      *json.Decoder
	before37 bool // a create request of Connect before KIP-980 (create.go)
}

// document reads the top-level ConnectorOffsets. isNull: an empty body or
// a JSON null; a nil list with !isNull is "offsets" missing or null.
func (d *bodyDecoder) document() (list []*offsetEdit, isNull bool, e *restError) {
	at := d.tokenStart()
	tok, err := d.dec.Token()
	if err == io.EOF {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, d.syntax(err)
	}
	switch tok {
	case nil:
		return nil, true, nil
	case json.Delim('['):
		return nil, false, d.mismatch(javaOffsets, tok, at, "")
	case json.Delim('{'):
	default:
		return nil, false, d.noCreator(javaOffsets, tok, at, "")
	}
	for {
		name, at, done, e := d.field()
		if e != nil || done {
			return list, false, e
		}
		chain := javaOffsets + `["` + name + `"]`
		if name != "offsets" {
			return nil, false, d.unknown(javaOffsets, name, `one known property: "offsets"`, at, chain)
		}
		if list, e = d.offsets(chain); e != nil {
			return nil, false, e
		}
	}
}

// offsets reads the value of "offsets": null or an array of ConnectorOffset.
func (d *bodyDecoder) offsets(chain string) ([]*offsetEdit, *restError) {
	at := d.tokenStart()
	tok, err := d.dec.Token()
	if err != nil {
		return nil, d.syntax(err)
	}
	switch tok {
	case nil:
		return nil, nil
	case json.Delim('['):
	default:
		return nil, d.mismatch(javaOffsetsTy, tok, at, chain)
	}
	list := []*offsetEdit{}
	for i := 0; ; i++ {
		if !d.dec.More() {
			if _, err := d.dec.Token(); err != nil {
				return nil, d.syntax(err)
			}
			return list, nil
		}
		o, e := d.connectorOffset(fmt.Sprintf("%s->java.util.ArrayList[%d]", chain, i))
		if e != nil {
			return nil, e
		}
		list = append(list, o)
	}
}

// connectorOffset reads one ConnectorOffset: null, or {"partition":…,"offset":…}.
func (d *bodyDecoder) connectorOffset(chain string) (*offsetEdit, *restError) {
	at := d.tokenStart()
	tok, err := d.dec.Token()
	if err != nil {
		return nil, d.syntax(err)
	}
	switch tok {
	case nil:
		return nil, nil
	case json.Delim('['):
		return nil, d.mismatch(javaOffset, tok, at, chain)
	case json.Delim('{'):
	default:
		return nil, d.noCreator(javaOffset, tok, at, chain)
	}
	o := &offsetEdit{}
	for {
		name, at, done, e := d.field()
		if e != nil {
			return nil, e
		}
		if done {
			return o, nil
		}
		fchain := chain + "->" + javaOffset + `["` + name + `"]`
		switch name {
		case "partition":
			o.partition, e = d.stringMap(fchain)
		case "offset":
			o.offset, e = d.stringMap(fchain)
		default:
			e = d.unknown(javaOffset, name, `2 known properties: "partition", "offset"`, at, fchain)
		}
		if e != nil {
			return nil, e
		}
	}
}

// stringMap reads a Map<String, ?>: null or any JSON object.
func (d *bodyDecoder) stringMap(chain string) (java.Object, *restError) {
	at := d.tokenStart()
	var raw json.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		return nil, d.syntax(err)
	}
	v, err := java.ParseJSON(raw)
	if err != nil {
		return nil, d.syntax(err) // unreachable: Decode validated it
	}
	switch v := v.(type) {
	case nil:
		return nil, nil
	case java.Object:
		return v, nil
	case string:
		// MapDeserializer tries a String-argument creator first.
		return nil, d.noCreator("java.util.LinkedHashMap", v, at, chain)
	case []any:
		return nil, d.mismatch(javaMapTy, json.Delim('['), at, chain)
	default:
		return nil, d.mismatch(javaMapTy, v, at, chain)
	}
}

// field reads the next field name of an object, or its end (done).
func (d *bodyDecoder) field() (name string, at int, done bool, e *restError) {
	at = d.tokenStart()
	tok, err := d.dec.Token()
	if err != nil {
		return "", at, false, d.syntax(err)
	}
	if tok == json.Delim('}') {
		return "", at, true, nil
	}
	return tok.(string), at, false, nil
}

// tokenStart is the offset where the next token starts.
func (d *bodyDecoder) tokenStart() int {
	i := int(d.dec.InputOffset())
	for i < len(d.body) && strings.IndexByte(" \t\r\n:,", d.body[i]) >= 0 {
		i++
	}
	return i
}

// location is Jackson's suffix naming where in the body an error is.
func (d *bodyDecoder) location(at int) string {
	at = min(at, len(d.body))
	line := 1 + bytes.Count(d.body[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(d.body[:at], '\n')
	return fmt.Sprintf("\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: %d, column: %d]", line, col)
}

func chainSuffix(chain string) string {
	if chain == "" {
		return ""
	}
	return " (through reference chain: " + chain + ")"
}

func (d *bodyDecoder) unknown(class, name, known string, at int, chain string) *restError {
	return errorf(http.StatusInternalServerError, `Unrecognized field "%s" (class %s), not marked as ignorable (%s])%s%s`,
		name, class, known, d.location(at), chainSuffix(chain))
}

// mismatch is MismatchedInputException for a token the type cannot start
// with.
func (d *bodyDecoder) mismatch(typ string, tok json.Token, at int, chain string) *restError {
	var shape, token string
	switch t := tok.(type) {
	case json.Delim:
		shape, token = "Array", "START_ARRAY"
		if t == '{' {
			shape, token = "Object", "START_OBJECT"
		}
	case string:
		shape, token = "String", "VALUE_STRING"
	case bool:
		shape, token = "Boolean", "VALUE_FALSE"
		if t {
			token = "VALUE_TRUE"
		}
	case json.Number:
		shape, token = "Integer", "VALUE_NUMBER_INT"
		if strings.ContainsAny(string(t), ".eE") {
			shape, token = "Floating-point", "VALUE_NUMBER_FLOAT"
		}
	}
	return errorf(http.StatusInternalServerError, "Cannot deserialize value of type `%s` from %s value (token `JsonToken.%s`)%s%s",
		typ, shape, token, d.location(at), chainSuffix(chain))
}

// noCreator is what a bean deserialiser says for a scalar it has no
// single-argument creator for.
func (d *bodyDecoder) noCreator(class string, tok json.Token, at int, chain string) *restError {
	var what string
	switch t := tok.(type) {
	case string:
		what = fmt.Sprintf("no String-argument constructor/factory method to deserialize from String value ('%s')", t)
	case bool:
		what = fmt.Sprintf("no boolean/Boolean-argument constructor/factory method to deserialize from boolean value (%t)", t)
	case json.Number:
		kind := "double/Double"
		if !strings.ContainsAny(string(t), ".eE") {
			kind = "long/Long"
			if _, err := strconv.ParseInt(string(t), 10, 32); err == nil {
				kind = "int/Int"
			}
		}
		what = fmt.Sprintf("no %s-argument constructor/factory method to deserialize from Number value (%s)", kind, t)
	}
	return errorf(http.StatusInternalServerError, "Cannot construct instance of `%s` (although at least one Creator exists): %s%s%s",
		class, what, d.location(at), chainSuffix(chain))
}

// syntax turns an encoding/json error into Jackson's JsonParseException
// text for the same input.
func (d *bodyDecoder) syntax(err error) *restError {
	var se *json.SyntaxError
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &se) {
		return d.endOfInput()
	}
	i := min(int(se.Offset), len(d.body))
	msg := se.Error()
	// Decoder.Token gives no context right after '{'.
	fieldName := strings.HasSuffix(msg, "looking for beginning of object key string") ||
		strings.HasSuffix(msg, "'") && d.prevByte(i) == '{'
	// A bad literal (tru, nul, a bare word) is reported as a whole token.
	start := i
	for start > 0 && isWordByte(d.body[start-1]) {
		start--
	}
	if !fieldName && start < len(d.body) && (strings.Contains(msg, "in literal") || isLetter(d.body[start])) {
		end := start
		for end < len(d.body) && isWordByte(d.body[end]) {
			end++
		}
		return errorf(http.StatusInternalServerError,
			"Unrecognized token '%s': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')%s",
			d.body[start:end], d.location(start))
	}
	if i >= len(d.body) {
		return d.endOfInput()
	}
	c := d.body[i]
	var expect string
	switch {
	case fieldName:
		expect = ": was expecting double-quote to start field name"
	case strings.HasSuffix(msg, "looking for beginning of value"):
		expect = ": expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')"
	case strings.HasSuffix(msg, "after object key"):
		expect = ": was expecting a colon to separate field name and value"
	case strings.HasSuffix(msg, "after object key:value pair"):
		expect = ": was expecting comma to separate Object entries"
	case strings.HasSuffix(msg, "after array element"):
		expect = ": was expecting comma to separate Array entries"
	case c < 0x20:
		return errorf(http.StatusInternalServerError,
			"Illegal unquoted character ((CTRL-CHAR, code %d)): has to be escaped using backslash to be included in string value%s",
			c, d.location(i))
	}
	return errorf(http.StatusInternalServerError, "Unexpected character ('%c' (code %d))%s%s", c, c, expect, d.location(i))
}

// endOfInput is Jackson's message for a body that stops too early.
func (d *bodyDecoder) endOfInput() *restError {
	var stack []int
	inString := false
	for i := 0; i < len(d.body); i++ {
		c := d.body[i]
		switch {
		case inString && c == '\\':
			i++
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			stack = append(stack, i)
		case (c == '}' || c == ']') && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	end := d.location(len(d.body))
	// Where a value or the next entry must come (after ':' or ','),
	// Jackson says it ended between entries (recorded from Connect 4.1.1:
	// testdata/connect-rest/*-create-not-json).
	last := d.prevByte(len(d.body))
	between := !inString && len(stack) > 0 && (last == ':' || last == ',')
	switch {
	case between:
		kind := "Object"
		if d.body[stack[len(stack)-1]] == '[' {
			kind = "Array"
		}
		return errorf(http.StatusInternalServerError, "Unexpected end-of-input within/between %s entries%s", kind, end)
	case inString:
		return errorf(http.StatusInternalServerError, "Unexpected end-of-input: was expecting closing quote for a string value%s", end)
	case len(stack) > 0:
		top := stack[len(stack)-1]
		kind := "Object"
		if d.body[top] == '[' {
			kind = "Array"
		}
		marker := strings.TrimPrefix(d.location(top), "\n at ")
		return errorf(http.StatusInternalServerError, "Unexpected end-of-input: expected close marker for %s (start marker at %s)%s", kind, marker, end)
	}
	return errorf(http.StatusInternalServerError, "Unexpected end-of-input%s", end)
}

func (d *bodyDecoder) prevByte(i int) byte {
	for i--; i >= 0; i-- {
		if c := d.body[i]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c
		}
	}
	return 0
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isWordByte(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' || c == '_' }
