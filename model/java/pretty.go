package java

import "strings"

// Pretty renders a parsed JSON value on several lines for the partition
// detail view: one member per line, nested levels indented by indent,
// numbers exactly as parsed and strings escaped as the worker's Jackson
// writer escapes them, so what is shown is what the key or value holds.
// Empty objects and arrays stay on one line ({} and []).
func Pretty(v any, indent string) string {
	var b []byte
	b = appendPretty(b, v, indent, 0)
	return string(b)
}

func appendPretty(b []byte, v any, indent string, depth int) []byte {
	newline := func(b []byte, d int) []byte {
		b = append(b, '\n')
		return append(b, strings.Repeat(indent, d)...)
	}
	switch v := v.(type) {
	case Object:
		if len(v) == 0 {
			return AppendJackson(b, v) // {} or null
		}
		b = append(b, '{')
		for i, f := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, depth+1)
			b = appendJacksonString(b, f.Name)
			b = append(b, ':', ' ')
			b = appendPretty(b, f.Value, indent, depth+1)
		}
		b = newline(b, depth)
		return append(b, '}')
	case []any:
		if len(v) == 0 {
			return AppendJackson(b, v) // [] or null
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, depth+1)
			b = appendPretty(b, e, indent, depth+1)
		}
		b = newline(b, depth)
		return append(b, ']')
	case map[string]any:
		if v == nil {
			return append(b, "null"...)
		}
		return appendPretty(b, mapToObject(v), indent, depth)
	}
	return AppendJackson(b, v)
}
