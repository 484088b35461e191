package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"koff/edit/plan"
	"koff/model"
)

// CopyRequest is the request that gives connector `to` every live source
// offset `from` has, as a new planned edit of `to`.
func (e *Planner) CopyRequest(from, to string) (plan.Request, error) {
	if from == "" || to == "" {
		return plan.Request{}, errors.New("copy needs a source and a target connector")
	}
	if from == to {
		return plan.Request{}, errors.New("copy to the same connector changes nothing")
	}
	req := plan.Request{Connector: to, Kind: plan.KindCopy, From: from}
	seen := map[string]bool{}
	for _, c := range e.StoredCopies(from) {
		if c.Row.Deleted || c.Partition == nil || seen[c.Canon] {
			continue
		}
		seen[c.Canon] = true
		off, err := model.ParseOffset([]byte(c.Row.Offset))
		if err != nil {
			continue
		}
		req.Items = append(req.Items, plan.Item{Partition: c.Partition, Offset: off})
	}
	if len(req.Items) == 0 && !e.HasStoredCopies(from) {
		// A name koff sees nowhere is a typo: say which names are close.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if known := e.KnownNames(ctx); !slices.Contains(known, from) {
			return plan.Request{}, &UnknownConnectorError{Name: from, Closest: ClosestNames(from, known),
				Where: []string{"no offsets in " + strings.Join(e.topics(), ", ") + " to copy"}, NoCreate: true}
		}
	}
	if len(req.Items) == 0 {
		return plan.Request{}, fmt.Errorf("connector %s has no offsets to copy", from)
	}
	return req, nil
}
