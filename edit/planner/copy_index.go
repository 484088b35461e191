package planner

// copyIndex finds the stored copies of one partition map among a
// connector's without scanning them all: an import or a rewind of
// thousands of partitions would otherwise take time quadratic in them.
type copyIndex struct {
	copies []StoredCopy
	by     map[string][]StoredCopy
}

func newCopyIndex(copies []StoredCopy) *copyIndex {
	x := &copyIndex{copies: copies, by: make(map[string][]StoredCopy, len(copies))}
	for _, c := range copies {
		x.by[c.Canon] = append(x.by[c.Canon], c)
	}
	return x
}

// of returns the copies of canon among copies, in their order: from the
// index when it was made of the same slice, else by a scan.
func (x *copyIndex) of(canon string, copies []StoredCopy) []StoredCopy {
	if x != nil && len(copies) == len(x.copies) && (len(copies) == 0 || &copies[0] == &x.copies[0]) {
		return x.by[canon]
	}
	var out []StoredCopy
	for _, c := range copies {
		if c.Canon == canon {
			out = append(out, c)
		}
	}
	return out
}
