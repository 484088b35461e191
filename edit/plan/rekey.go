package plan

import "strings"

// RekeyAsked is what a rekey rewrites in a connector's source partitions:
// each Set field's value, in the partitions every Where field matches.
// The planner expands it into items from the offsets as they are when it
// plans, so that a rekey planned again after its stop step reads the
// tasks' last flush.
type RekeyAsked struct {
	Set   []FieldValue `json:"set"`
	Where []FieldValue `json:"where,omitempty"`
}

// FieldValue is one FIELD=VALUE of the command line: VALUE as typed.
type FieldValue struct {
	Field string `json:"field"`
	Value string `json:"value"`
}

// ParseFieldValue reads FIELD=VALUE (split at the first =).
func ParseFieldValue(s string) (FieldValue, bool) {
	f, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(f) == "" {
		return FieldValue{}, false
	}
	return FieldValue{Field: f, Value: v}, true
}

// Text is "server=dbz2, …".
func (r *RekeyAsked) Text() string {
	parts := make([]string, len(r.Set))
	for i, s := range r.Set {
		parts[i] = s.Field + "=" + s.Value
	}
	out := strings.Join(parts, ", ")
	if len(r.Where) > 0 {
		w := make([]string, len(r.Where))
		for i, s := range r.Where {
			w[i] = s.Field + "=" + s.Value
		}
		out += " where " + strings.Join(w, ", ")
	}
	return out
}
