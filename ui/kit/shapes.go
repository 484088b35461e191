package kit

import (
	"koff/model"
	"koff/model/java"
)

// siblingShapes are a connector's stored partition maps and the offset
// shapes it wrote, for the forms to compare new ones with.
type SiblingShapes struct{ Partitions, Offsets []java.Object }

// canonPartition is a partition map's text regardless of field order.
func CanonPartition(p java.Object) string {
	if p == nil {
		return "null"
	}
	return model.SortedJSON(p)
}
