package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
)

// UnknownPartition is one partition an edit names that the connector (or
// a sink's group) never had, with the stored partitions closest to it.
type UnknownPartition struct {
	Partition string // compact JSON, as typed
	Closest   []string
}

// UnknownPartitionError refuses an edit of partitions the connector has
// no offset for, ever: a misspelt value or a missing field is valid JSON
// that would write a new key the task never reads, while the partition
// meant stays as it is. Create (--create) adds them instead.
type UnknownPartitionError struct {
	Connector string
	// Sink: the partitions are topic-partitions of the group Group.
	Sink    bool
	Group   string
	Unknown []UnknownPartition
	// Reset: deleting cannot create, so Create does not help.
	Reset bool
	// NoCreate: the command creates nothing (a history, a rewind): no
	// --create hint.
	NoCreate bool
}

func (e *UnknownPartitionError) Error() string {
	var s string
	if e.Sink {
		s = fmt.Sprintf("group %s of connector %s never committed %s", e.Group, e.Connector, e.list())
	} else {
		s = fmt.Sprintf("connector %s has no offset for source partition %s", e.Connector, e.list())
	}
	switch {
	case e.Reset:
		return s + "; nothing to reset."
	case e.NoCreate:
		return s + "."
	case e.Sink:
		return s + ". Pass --create to commit a partition the topic has."
	case len(e.Unknown) == 1:
		return s + ". Pass --create to add it as a new source partition."
	}
	return s + ". Pass --create to add them as new source partitions."
}

// CreatingNothing leaves the --create hint out of err's refusal of a
// name or partition: for commands that create nothing.
func CreatingNothing(err error) error {
	var c *UnknownConnectorError
	var p *UnknownPartitionError
	switch {
	case errors.As(err, &c):
		c.NoCreate = true
	case errors.As(err, &p):
		p.NoCreate = true
	}
	return err
}

// list names each unknown partition and its did-you-mean, on one line.
func (e *UnknownPartitionError) list() string {
	parts := make([]string, len(e.Unknown))
	for i, u := range e.Unknown {
		parts[i] = u.Partition + PartitionDidYouMean(u.Closest)
	}
	return strings.Join(parts, ", ")
}

// PartitionDidYouMean is " (did you mean X?)" after a partition, for the
// closest stored partitions, or "".
func PartitionDidYouMean(closest []string) string {
	if q := didYouMean(closest); q != "" {
		return " (" + q + ")"
	}
	return ""
}

// RequirePartitions refuses a set, import or reset of source partitions
// the connector has no stored copy of (live or deleted: a partition once
// reset is still the connector's), unless create adds them.
func (e *Planner) RequirePartitions(req plan.Request, copies []StoredCopy) error {
	switch req.Kind {
	case plan.KindSet, plan.KindImport, plan.KindRewind:
		if req.Create {
			return nil
		}
	case plan.KindReset:
	default:
		return nil
	}
	have := map[string]bool{}
	var stored []StoredCopy
	for _, c := range copies {
		if !have[c.Canon] {
			have[c.Canon] = true
			stored = append(stored, c)
		}
	}
	err := &UnknownPartitionError{Connector: req.Connector, Reset: req.Kind == plan.KindReset}
	var cands []candidate
	for _, it := range req.Items {
		if it.Stray != nil || len(it.Restore) > 0 || have[CanonOf(it.Partition)] {
			continue
		}
		if cands == nil {
			cands = candidates(stored)
		}
		err.Unknown = append(err.Unknown, UnknownPartition{Partition: compactJSON(it.Partition), Closest: closestPartitions(it.Partition, cands)})
	}
	if len(err.Unknown) == 0 {
		return nil
	}
	return err
}

// candidate is a stored partition as shown, and the text compared.
type candidate struct {
	json  string
	text  []rune
	runes int
}

func candidates(stored []StoredCopy) []candidate {
	out := make([]candidate, len(stored))
	for i, c := range stored {
		t := []rune(similarityText(c.Partition))
		out[i] = candidate{c.Row.Partition, t, len(t)}
	}
	return out
}

// ClosestPartitions are up to three of stored most like p, as compact
// JSON: the dashboard's did-you-mean as a partition is typed.
func ClosestPartitions(p java.Object, stored []java.Object) []string {
	cs := make([]StoredCopy, len(stored))
	for i, o := range stored {
		cs[i] = StoredCopy{Partition: o, Row: model.PartitionRow{Partition: compactJSON(o)}}
	}
	return closestPartitions(p, candidates(cs))
}

// closestPartitions are up to three stored partitions most like p, by the
// edit distance of their field-sorted JSON (field names and values both
// count), closest first.
func closestPartitions(p java.Object, stored []candidate) []string {
	type cand struct {
		json string
		d    int
	}
	want := []rune(similarityText(p))
	cs := make([]cand, 0, len(stored))
	best := -1
	for _, c := range stored {
		// Only candidates that can come near the closest so far are
		// measured, and only that far.
		bound := len(want) + c.runes
		if best >= 0 {
			bound = best + max(1, best/2)
		}
		d, ok := distanceWithin(want, c.text, bound)
		if !ok {
			continue
		}
		if best < 0 || d < best {
			best = d
		}
		cs = append(cs, cand{c.json, d})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	// A partition that shares nothing with p is no suggestion, and one
	// much further than the closest is noise.
	limit := max(3, len([]rune(want))*2/3)
	if len(cs) > 0 {
		limit = min(limit, cs[0].d+max(1, cs[0].d/2))
	}
	var out []string
	for _, c := range cs {
		if len(out) == 3 || c.d > limit {
			break
		}
		out = append(out, c.json)
	}
	return out
}

// distanceWithin is the Levenshtein distance of a and b when it is at
// most bound, computed in the band of cells that can stay within it.
func distanceWithin(a, b []rune, bound int) (int, bool) {
	if d := len(a) - len(b); d > bound || -d > bound {
		return 0, false
	}
	const far = 1 << 30
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
		if j > bound {
			prev[j] = far
		}
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-bound), min(len(b), i+bound)
		// The cells next to the band are read by the next row: out of
		// reach.
		cur[lo-1] = far
		if lo == 1 && i <= bound {
			cur[0] = i
		}
		if hi < len(b) {
			cur[hi+1] = far
		}
		least := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			least = min(least, cur[j])
		}
		if least > bound {
			return 0, false
		}
		prev, cur = cur, prev
	}
	if prev[len(b)] > bound {
		return 0, false
	}
	return prev[len(b)], true
}

// similarityText is a partition map's field-sorted JSON, cut short so a
// long map costs little to compare.
func similarityText(p java.Object) string {
	s := "null"
	if p != nil {
		s = model.SortedJSON(p)
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200])
	}
	return s
}

// requireSinkPartitions refuses topic-partitions a sink's group never
// committed: a typo in a topic or partition number. With create, one the
// topic really has is a new partition to commit; one it does not have is
// refused still.
func (e *Planner) requireSinkPartitions(ctx context.Context, p *plan.Plan, create bool, committed []model.GroupPartition, tps []model.TopicPartition) error {
	if p.Kind == plan.KindUndo {
		return nil
	}
	had := map[model.TopicPartition]bool{}
	for _, gp := range committed {
		had[gp.TopicPartition] = true
	}
	err := &UnknownPartitionError{Connector: p.Connector, Sink: true, Group: p.Group, Reset: p.Kind == plan.KindReset || p.Kind == plan.KindResetAll}
	counts := map[string]int{}
	for _, tp := range tps {
		if had[tp] {
			continue
		}
		if create && !err.Reset {
			n, ok := counts[tp.Topic]
			if !ok {
				var cerr error
				if n, cerr = e.Kafka.PartitionCount(ctx, tp.Topic); cerr != nil {
					return fmt.Errorf("topic %s: %v", tp.Topic, cerr)
				}
				counts[tp.Topic] = n
			}
			if tp.Partition >= 0 && tp.Partition < n {
				continue
			}
			return fmt.Errorf("topic %s has no partition %d (%s): nothing to commit", tp.Topic, tp.Partition, partitionsWord(n))
		}
		err.Unknown = append(err.Unknown, UnknownPartition{Partition: plan.SinkPartitionJSON(tp), Closest: closestTopicPartitions(tp, committed)})
	}
	if len(err.Unknown) == 0 {
		return nil
	}
	return err
}

func partitionsWord(n int) string {
	switch n {
	case 0:
		return "no such topic"
	case 1:
		return "it has 1 partition"
	}
	return fmt.Sprintf("it has %d partitions", n)
}

// closestTopicPartitions are the group's committed topic-partitions most
// like tp: the same topic first, then topics of a similar name.
func closestTopicPartitions(tp model.TopicPartition, committed []model.GroupPartition) []string {
	stored := make([]StoredCopy, 0, len(committed))
	for _, gp := range committed {
		o := java.Object{{Name: "kafka_partition", Value: json.Number(strconv.Itoa(gp.Partition))}, {Name: "kafka_topic", Value: gp.Topic}}
		stored = append(stored, StoredCopy{Partition: o, Row: model.PartitionRow{Partition: plan.SinkPartitionJSON(gp.TopicPartition)}})
	}
	p := java.Object{{Name: "kafka_partition", Value: json.Number(strconv.Itoa(tp.Partition))}, {Name: "kafka_topic", Value: tp.Topic}}
	return closestPartitions(p, candidates(stored))
}

// NothingToResetError: a reset of a whole connector that has no offsets
// left. Connect answers a second DELETE of a stopped connector's offsets
// with 200, so the CLI says so and succeeds.
type NothingToResetError struct {
	Connector string
	Where     string // the offsets topics, or the sink's group
}

func (e *NothingToResetError) Error() string {
	return fmt.Sprintf("nothing to reset: connector %s has no offsets in %s", e.Connector, e.Where)
}
