package edit

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"koff/model"
)

// KindCopy sets another connector's offsets to a connector's (an orphan's
// offsets moved to the connector that replaces it).
const KindCopy Kind = "copy"

// CopyRequest is the request that gives connector `to` every live source
// offset `from` has, as a new planned edit of `to`.
func (e *Editor) CopyRequest(from, to string) (Request, error) {
	if from == "" || to == "" {
		return Request{}, errors.New("copy needs a source and a target connector")
	}
	if from == to {
		return Request{}, errors.New("copy to the same connector changes nothing")
	}
	req := Request{Connector: to, Kind: KindCopy, From: from}
	seen := map[string]bool{}
	for _, c := range e.storedCopies(from) {
		if c.row.Deleted || c.partition == nil || seen[c.canon] {
			continue
		}
		seen[c.canon] = true
		off, err := model.ParseOffset([]byte(c.row.Offset))
		if err != nil {
			continue
		}
		req.Items = append(req.Items, Item{Partition: c.partition, Offset: off})
	}
	if len(req.Items) == 0 && !e.hasStoredCopies(from) {
		// A name koff sees nowhere is a typo: say which names are close.
		ctx, cancel := contextWithTimeout(10 * time.Second)
		defer cancel()
		if known := e.knownNames(ctx); !slices.Contains(known, from) {
			return Request{}, &UnknownConnectorError{Name: from, Closest: ClosestNames(from, known),
				Where: []string{"no offsets in " + strings.Join(e.topics(), ", ") + " to copy"}, NoCreate: true}
		}
	}
	if len(req.Items) == 0 {
		return Request{}, fmt.Errorf("connector %s has no offsets to copy", from)
	}
	return req, nil
}
