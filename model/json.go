package model

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
