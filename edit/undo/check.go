package undo

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
)

// newerValues compares what the edit wrote with what each of its
// partitions holds now: the Store's value of every key it wrote (the
// tailer keeps it), or a sink group's committed offset. A partition that
// moved on (a task flushed, another tool or edit wrote) is listed, with
// who wrote its value and when, as far as koff can tell.
func (e *Finder) newerValues(ctx context.Context, ed audit.Edit, later []audit.Edit) ([]NewerValue, error) {
	s := ed.Start
	if group := groupOf(s); group != "" {
		return e.newerGroupValues(ctx, group, ed, later)
	}
	var out []NewerValue
	unknown := ed.UnknownSet()
	for _, ch := range audit.UndoChanges(ed) {
		recs := writtenRecords(ch.Records, ed)
		if len(ch.Records) == 0 {
			// A line of an older koff: the live copy's value.
			if n, ok := e.newerLive(s, ch, later); ok {
				out = append(out, n)
			}
			continue
		}
		for _, r := range recs {
			tp, err := parseTP(r.TopicPartition)
			if err != nil {
				return nil, err
			}
			key := r.KeyBytes()
			d, found := e.Store.Partition(model.PartitionID{TopicPartition: tp, Key: string(key)})
			var now []byte
			if found && !d.Deleted {
				now = d.Value
			}
			if plan.SameRecordValue(now, r.ValueBytes(), s.Path) {
				continue
			}
			if unknown[r.TopicPartition] && plan.SameRecordValue(now, r.BeforeBytes(), s.Path) {
				continue // a write that may have been lost did not land: nothing newer
			}
			by := whoWroteSince(later, s.Cluster, func(en audit.Entry, c audit.Change) bool {
				for _, lr := range c.Records {
					if lr.TopicPartition == r.TopicPartition && bytes.Equal(lr.KeyBytes(), key) && plan.SameRecordValue(lr.ValueBytes(), now, en.Path) {
						return true
					}
				}
				return false
			})
			if by == "" {
				by = recordBy(d, found)
			}
			out = append(out, NewerValue{Partition: string(ch.Partition), Where: r.TopicPartition, Wrote: r.ValueBytes(), Now: now, By: by})
		}
	}
	return out, nil
}

// newerLive compares an older line's after-value with the live copy.
func (e *Finder) newerLive(s audit.Entry, ch audit.Change, later []audit.Edit) (NewerValue, bool) {
	p, err := plan.ParsePartition(string(ch.Partition))
	if err != nil {
		return NewerValue{}, false
	}
	want := afterBytes(ch.After)
	var now []byte
	var live model.PartitionDetail
	found := false
	for _, c := range e.Planner.StoredCopies(s.Connector) {
		if c.Canon == planner.CanonOf(p) && c.Row.Live {
			live, found = e.Store.Partition(c.Row.ID)
			if found && !live.Deleted {
				now = live.Value
			}
			break
		}
	}
	if plan.SameRecordValue(now, want, plan.PathREST) {
		return NewerValue{}, false
	}
	by := whoWroteSince(later, s.Cluster, func(en audit.Entry, c audit.Change) bool {
		return string(c.Partition) == string(ch.Partition) && plan.SameRecordValue(afterBytes(c.After), now, plan.PathREST)
	})
	if by == "" {
		by = recordBy(live, found)
	}
	where := "the offsets topic"
	if found {
		where = live.ID.TopicPartition.String()
	}
	return NewerValue{Partition: string(ch.Partition), Where: where, Wrote: want, Now: now, By: by}, true
}

// newerGroupValues compares a sink edit's offsets with the group's
// committed offsets now.
func (e *Finder) newerGroupValues(ctx context.Context, group string, ed audit.Edit, later []audit.Edit) ([]NewerValue, error) {
	poll, err := e.groupPoll(ctx, group)
	if err != nil {
		return nil, err
	}
	now := map[string]int64{}
	for _, gp := range poll.Partitions {
		now[plan.SinkPartitionJSON(gp.TopicPartition)] = gp.Committed
	}
	var out []NewerValue
	for _, ch := range audit.UndoChanges(ed) {
		want, err := sinkOffsetOf(ch)
		if err != nil {
			return nil, err
		}
		cur, ok := now[string(ch.Partition)]
		if !ok {
			cur = -1
		}
		if cur == want {
			continue
		}
		if len(ed.UnknownSet()) > 0 {
			// A commit whose answer was lost may not have landed: the
			// offset from before it is nothing newer.
			if before, err := sinkOffsetBefore(ch); err == nil && cur == before {
				continue
			}
		}
		var nowJSON []byte
		if cur >= 0 {
			nowJSON = plan.SinkOffsetJSON(cur)
		}
		by := whoWroteSince(later, ed.Start.Cluster, func(en audit.Entry, c audit.Change) bool {
			o, err := sinkOffsetOf(c)
			return err == nil && string(c.Partition) == string(ch.Partition) && o == cur
		})
		if by == "" {
			by = "committed by the group, not by koff: its tasks, or another tool"
		}
		out = append(out, NewerValue{Partition: string(ch.Partition), Where: "group " + group, Wrote: afterBytes(ch.After), Now: nowJSON, By: by})
	}
	return out, nil
}

// sinkOffsetOf is the committed offset a sink change wrote (-1: deleted).
func sinkOffsetOf(ch audit.Change) (int64, error) {
	if string(ch.After) == "null" || len(ch.After) == 0 {
		return -1, nil
	}
	it, err := plan.ParsePartition(string(ch.Partition))
	if err != nil {
		return 0, err
	}
	o, err := model.ParseOffset(ch.After)
	if err != nil {
		return 0, err
	}
	_, off, err := planner.SinkItem(plan.Item{Partition: it, Offset: o})
	return off, err
}

func afterBytes(raw []byte) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// whoWroteSince names the newest later koff edit (of the same cluster, or
// of an unknown one) that wrote the value a change matches, "" if none.
func whoWroteSince(later []audit.Edit, cluster string, wrote func(audit.Entry, audit.Change) bool) string {
	for i := len(later) - 1; i >= 0; i-- {
		ed := later[i]
		s := ed.Start
		if s.Cluster != "" && s.Cluster != cluster || !wroteSome(ed) {
			continue
		}
		for _, c := range s.Changes {
			if wrote(s, c) {
				return fmt.Sprintf("written by koff: the %s", audit.EditName(s))
			}
		}
	}
	return ""
}

// recordBy says what koff knows of a record it did not write.
func recordBy(d model.PartitionDetail, found bool) string {
	if !found {
		return "no record of it in the offsets topic"
	}
	what := "a record"
	if d.Deleted {
		what = "a tombstone"
	}
	return fmt.Sprintf("%s at %s, offset %s, not written by koff: a task flushed, or another tool wrote", what,
		model.TimeText(d.Updated), strconv.FormatInt(d.RecordOffset, 10))
}

// sinkOffsetBefore is the committed offset a sink change replaced (-1:
// none).
func sinkOffsetBefore(ch audit.Change) (int64, error) {
	return sinkOffsetOf(audit.Change{Partition: ch.Partition, After: ch.Before})
}

// writtenRecords are the records of a change that reached the log or may
// have: all of a whole edit, those of the written and unknown
// topic-partitions otherwise (as restoresOf puts back).
func writtenRecords(recs []audit.Record, ed audit.Edit) []audit.Record {
	written := ed.UndoSet()
	whole := ed.Start.ID == "" || ed.Result() == audit.ResultVerified || ed.Result() == audit.ResultUnverified || ed.Result() == audit.ResultOverwritten
	var out []audit.Record
	for _, r := range recs {
		if whole || written[r.TopicPartition] {
			out = append(out, r)
		}
	}
	return out
}
