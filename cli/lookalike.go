package cli

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"koff/model"
	"koff/model/text"
)

// warnLookAlike says on stderr which connector names read the same on a
// terminal (a Cyrillic о for an o, a zero-width space), each written out in
// ASCII so the two can be told apart, so that an operator does not read or
// edit one for the other. With names given, only the groups holding one of
// them are said.
func warnLookAlike(w io.Writer, rows []model.ConnectorRow, named []string) {
	bySkeleton := map[string]map[string]bool{}
	for _, r := range rows {
		sk := text.Skeleton(r.ID.Name)
		if bySkeleton[sk] == nil {
			bySkeleton[sk] = map[string]bool{}
		}
		bySkeleton[sk][r.ID.Name] = true
	}
	asked := map[string]bool{}
	for _, n := range named {
		asked[text.Skeleton(n)] = true
	}
	var lines []string
	for sk, names := range bySkeleton {
		if len(names) < 2 || (len(named) > 0 && !asked[sk]) {
			continue
		}
		var quoted []string
		for n := range names {
			quoted = append(quoted, strconv.QuoteToASCII(n))
		}
		sort.Strings(quoted)
		lines = append(lines, strings.Join(quoted, " and "))
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprintf(w, "koff: warning: connector names that look alike: %s: check which one you mean\n", l)
	}
}
