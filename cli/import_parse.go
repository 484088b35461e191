package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"koff/edit/plan"
	"koff/model/java"
	"koff/model/text"
)

// parseExport reads koff export output: {"name":{"offsets":[{"partition":…,"offset":…}]}}.
// Numbers stay json.Number, so no offset loses digits. A bad file is
// refused with where: the line and column of a syntax error, the JSON
// path ($["name"].offsets[3]) of a value of the wrong shape; never a Go
// type.
func parseExport(data []byte) ([]plan.Request, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top json.RawMessage
	if err := dec.Decode(&top); err != nil {
		return nil, syntaxWhere(data, dec, err)
	}
	if err := dec.Decode(new(json.RawMessage)); err != io.EOF {
		return nil, fmt.Errorf("%s: more after the export's object (a koff export is one JSON object)", lineCol(data, afterSpace(data, len(top)+leadingSpace(data))))
	}
	var file map[string]json.RawMessage
	if kind := jsonKind(top); kind != "an object" {
		return nil, fmt.Errorf("not a koff export: $ is %s, not an object keyed by connector", kind)
	}
	if err := json.Unmarshal(top, &file); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(file))
	for n := range file {
		names = append(names, n)
	}
	sort.Strings(names)
	var reqs []plan.Request
	for _, n := range names {
		path := fmt.Sprintf("$[%s]", text.Sanitize(fmt.Sprintf("%q", n)))
		if kind := jsonKind(file[n]); kind != "an object" {
			return nil, fmt.Errorf("%s is %s, not {\"offsets\":[…]}", path, kind)
		}
		var conn struct {
			Offsets json.RawMessage `json:"offsets"`
		}
		if err := json.Unmarshal(file[n], &conn); err != nil {
			return nil, err
		}
		if kind := jsonKind(conn.Offsets); kind == "null" || kind == "missing" {
			continue // a connector with no offsets
		} else if kind != "an array" {
			return nil, fmt.Errorf("%s.offsets is %s, not an array of {\"partition\":…,\"offset\":…}", path, kind)
		}
		var entries []json.RawMessage
		if err := json.Unmarshal(conn.Offsets, &entries); err != nil {
			return nil, err
		}
		req := plan.Request{Connector: n, Kind: plan.KindImport}
		for i, raw := range entries {
			at := fmt.Sprintf("%s.offsets[%d]", path, i)
			if kind := jsonKind(raw); kind != "an object" {
				return nil, fmt.Errorf("%s is %s, not {\"partition\":…,\"offset\":…}", at, kind)
			}
			var e struct {
				Partition json.RawMessage `json:"partition"`
				Offset    json.RawMessage `json:"offset"`
			}
			if err := json.Unmarshal(raw, &e); err != nil {
				return nil, err
			}
			p, err := plan.ParsePartition(string(e.Partition))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", at, err)
			}
			var off java.Object
			if len(e.Offset) > 0 {
				off, _, err = plan.ParseOffset(string(e.Offset))
				if err != nil {
					return nil, fmt.Errorf("%s: %v", at, err)
				}
			}
			req.Items = append(req.Items, plan.Item{Partition: p, Offset: off})
		}
		if len(req.Items) > 0 {
			reqs = append(reqs, req)
		}
	}
	if len(reqs) == 0 {
		return nil, fmt.Errorf("no offsets in the file")
	}
	return reqs, nil
}

// syntaxWhere is a JSON syntax error with its line and column.
func syntaxWhere(data []byte, dec *json.Decoder, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		// Offset is just past the byte that broke the syntax.
		return fmt.Errorf("not a koff export: %s: %s", lineCol(data, max(int(syn.Offset)-1, 0)), syn.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("not a koff export: %s: the file ends inside a JSON value", lineCol(data, len(data)))
	case errors.Is(err, io.EOF):
		return errors.New("not a koff export: the file is empty")
	}
	return fmt.Errorf("not a koff export: %v", err)
}

// lineCol is "line L, column C" of byte offset at (both from 1; columns
// count characters).
func lineCol(data []byte, at int) string {
	at = min(at, len(data))
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	return fmt.Sprintf("line %d, column %d", line, 1+len([]rune(string(data[start:at]))))
}

func leadingSpace(data []byte) int { return len(data) - len(bytes.TrimLeft(data, " \t\r\n")) }

// afterSpace is the first offset from at that is not JSON whitespace.
func afterSpace(data []byte, at int) int { return at + leadingSpace(data[min(at, len(data)):]) }

// jsonKind names the kind of a JSON value, for a message.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "missing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
