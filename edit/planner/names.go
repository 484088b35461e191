package planner

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
)

// UnknownConnectorError refuses an edit of a name koff has never seen: no
// offsets in any offsets topic, no consumer group with committed offsets,
// and not in Connect. A typo must not create offsets, or a consumer group,
// for a connector that does not exist.
type UnknownConnectorError struct {
	Name    string
	Closest []string
	// Where lists what koff looked at, for the message.
	Where []string
	// NoCreate leaves out the --create hint: for a reset, an undo, a stop
	// or the source of a copy a new name has nothing to give.
	NoCreate bool
	// OffsetsOnly is a name Connect does not list whose offsets koff has
	// (an orphan): what needs its config cannot act on it, and its
	// offsets can still go to another connector.
	OffsetsOnly bool
}

func (e *UnknownConnectorError) Error() string {
	if e.OffsetsOnly {
		return fmt.Sprintf("%s is not in Connect: koff has only its offsets, and no config to act on; koff copy %s NEW gives them to another connector", e.Name, e.Name)
	}
	s := fmt.Sprintf("unknown connector %s: %s", e.Name, strings.Join(e.Where, ", "))
	if m := DidYouMean(e.Closest); m != "" {
		s += m
	} else {
		s += "."
	}
	if e.NoCreate {
		return s
	}
	return s + " Pass --create to write offsets for a new connector of this name."
}

// DidYouMean is "; did you mean X?" (or "one of X, Y?") for the closest
// names, "" when there are none: the one wording of every command.
func DidYouMean(closest []string) string {
	if q := didYouMean(closest); q != "" {
		return "; " + q
	}
	return ""
}

// didYouMean is "did you mean X?" or "did you mean one of X, Y?", "" for
// no names: the question both DidYouMean and PartitionDidYouMean ask.
func didYouMean(closest []string) string {
	switch len(closest) {
	case 0:
		return ""
	case 1:
		return "did you mean " + closest[0] + "?"
	}
	return "did you mean one of " + strings.Join(closest, ", ") + "?"
}

// creates: the kinds of edit that --create lets write offsets for a new
// name. A reset of a name koff has never seen has nothing to reset.
func creates(k plan.Kind) bool {
	return k != plan.KindReset && k != plan.KindResetAll && k != plan.KindUndo && k != plan.KindRewind
}

// connectorLister is the part of *connect.Client that lists connectors,
// for the names closest to a typo.
type connectorLister interface {
	Connectors(ctx context.Context) (map[string]connect.Connector, error)
}

// named says what koff knows of a connector name.
type named struct {
	copies bool // offsets-topic records (live or deleted)
	inREST bool // Connect lists it
	// inConfig: Connect's config topic holds its config (read when REST
	// is not asked).
	inConfig bool
	group    string
}

// lookUp finds a name in the offsets topics, in Connect and (as a sink)
// among consumer groups with committed offsets.
func (e *Planner) lookUp(ctx context.Context, name, group string) (named, error) {
	var n named
	n.copies = e.HasStoredCopies(name)
	if e.REST != nil {
		_, err := e.REST.Status(ctx, name)
		switch {
		case err == nil:
			n.inREST = true
		case !connect.IsNotFound(err):
			return n, err
		}
	}
	if e.REST == nil {
		c, _, ok := e.configOf(name)
		n.inConfig = ok && c.Config != nil
	}
	if !n.copies && !n.inREST {
		group, _ = e.SinkGroupOf(name, group)
		poll, err := e.groupPoll(ctx, group)
		if err != nil {
			return n, err
		}
		if len(poll.Partitions) > 0 {
			n.group = group
		}
	}
	return n, nil
}

// RequireKnown refuses a name koff has never seen unless create is set.
func (e *Planner) RequireKnown(ctx context.Context, kind plan.Kind, name, group string, create bool) error {
	if create {
		return nil
	}
	n, err := e.lookUp(ctx, name, group)
	if err != nil {
		return err
	}
	if n.copies || n.inREST || n.inConfig || n.group != "" {
		return nil
	}
	where := []string{"no offsets in " + strings.Join(e.topics(), ", ")}
	group, _ = e.SinkGroupOf(name, group)
	where = append(where, "no consumer group "+group+" with committed offsets")
	if e.REST != nil {
		where = append(where, "and Connect does not list it")
	}
	return &UnknownConnectorError{Name: name, Closest: ClosestNames(name, e.KnownNames(ctx)), Where: where, NoCreate: !creates(kind)}
}

// NotInConnect is Connect's 404 for a stop or resume, in the words of
// UnknownConnectorError, with the names closest to the typo.
func (e *Planner) NotInConnect(ctx context.Context, name string, err error) error {
	if !connect.IsNotFound(err) {
		return err
	}
	known := e.KnownNames(ctx)
	return &UnknownConnectorError{Name: name, Closest: ClosestNames(name, known), Where: []string{"Connect does not list it"}, NoCreate: true,
		OffsetsOnly: slices.Contains(known, name)}
}

// KnownNames are the connectors koff can see: in the offsets topics, in
// the Store's view of sinks, and in Connect.
func (e *Planner) KnownNames(ctx context.Context) []string {
	set := map[string]bool{}
	if l, ok := e.Store.(interface{ Connectors() []model.ConnectorRow }); ok {
		for _, r := range l.Connectors() {
			set[r.ID.Name] = true
		}
	}
	if l, ok := e.REST.(connectorLister); ok && e.REST != nil {
		if m, err := l.Connectors(ctx); err == nil {
			for n := range m {
				set[n] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ClosestNames are up to three known names within a small edit distance
// of name (or containing it, or contained in it), closest first.
func ClosestNames(name string, known []string) []string {
	type cand struct {
		n string
		d int
	}
	var cs []cand
	limit := max(2, len([]rune(name))/3)
	for _, k := range known {
		if k == name {
			continue
		}
		d := editDistance(strings.ToLower(name), strings.ToLower(k))
		if d <= limit || len(name) >= 3 && (strings.Contains(k, name) || strings.Contains(name, k) && len(k) >= 3) {
			cs = append(cs, cand{k, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for _, c := range cs {
		if len(out) == 3 {
			break
		}
		out = append(out, c.n)
	}
	return out
}

// editDistance is the Levenshtein distance in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
