package model

// Stubs replaced by the codec implementation (codec.go, jackson.go, hashmap.go, murmur2.go).

// Key is a parsed offsets-topic key: ["<connector>",{<source partition>}].
type Key struct {
	Connector string
	// Partition is nil when the key's second element is JSON null.
	Partition Object
	// PartitionRaw is the second element exactly as written in the key bytes.
	PartitionRaw []byte
}

func ParseKey(raw []byte) (Key, error)            { panic("todo") }
func ParseOffset(raw []byte) (Object, error)      { panic("todo") }
func ParseJSON(raw []byte) (any, error)           { panic("todo") }
func ValidateOffset(o Object) error               { panic("todo") }
func Preview(raw []byte, n int) string            { panic("todo") }
func AppendJackson(dst []byte, v any) []byte      { panic("todo") }
func EncodeKey(connector string, p Object) []byte { panic("todo") }
func HashMapOrder(o Object) Object                { panic("todo") }
func IsRESTCanonical(k Key, raw []byte) bool      { panic("todo") }
func Pretty(v any, indent string) string          { panic("todo") }
func Murmur2(b []byte) int32                      { panic("todo") }
func PartitionFor(key []byte, n int) int          { panic("todo") }
