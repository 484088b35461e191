package undo

import (
	"context"
	"fmt"
	"strings"

	"koff/edit/apply"
	"koff/edit/audit"
	"koff/edit/plan"
	"koff/edit/planner"
	"koff/model"
	"koff/model/store"
)

// UndoRequestContext is UndoRequest with a context for the reads of the
// log an interrupted edit needs: an edit whose process died before its
// outcome line is reconciled first (Reconcile), so that undo plans exactly
// the partitions that reached the log. It refuses what FindUndo's Refusal
// refuses without --force: use FindUndo to show or override it.
func (e *Finder) UndoRequestContext(ctx context.Context, connector string) (plan.Request, audit.Entry, error) {
	u, err := e.FindUndo(ctx, Query{Connector: connector})
	if err != nil {
		return plan.Request{}, audit.Entry{}, err
	}
	if err := u.Refusal(false, false); err != nil {
		return plan.Request{}, u.Edit, err
	}
	return u.Request, u.Edit, nil
}

// Reconcile settles an edit whose process ended without an outcome line
// (killed, or the machine went down): it reads each topic-partition the
// edit meant to write from the position logged before the first write,
// finds which batches are in the log, and appends the outcome.
func (e *Finder) Reconcile(ctx context.Context, ed audit.Edit) (audit.Edit, error) {
	if ed.Outcome != nil {
		return ed, nil
	}
	s := ed.Start
	written := ed.WrittenSet()
	bw, canRead := e.Kafka.(apply.BatchWriter)
	out := audit.Entry{
		ID: s.ID, Time: e.now().UTC(), User: s.User, Host: s.Host, PID: s.PID, Connector: s.Connector,
		Kind: s.Kind, Path: s.Path, Result: audit.ResultInterrupted, Cluster: s.Cluster, Undoes: s.Undoes,
		Message: fmt.Sprintf("its process ended without an outcome; reconciled with the log at %s", model.TimeText(e.now())),
	}
	if group := groupOf(s); group != "" {
		// A group commit is one request: it landed if the group holds
		// this edit's offsets now.
		landed, err := e.groupHolds(ctx, group, s)
		if err != nil {
			return ed, fmt.Errorf("reconcile the interrupted %s of %s: %w", s.Kind, s.Connector, err)
		}
		if landed {
			out.Written = []string{"group " + group}
		} else {
			// The commit may have been in flight when the process died.
			out.Unknown = []string{"group " + group}
		}
	}
	// Direct writes go one request at a time, in this order, each logged
	// as written once acknowledged before the next is sent: only the first
	// topic-partition not logged can have been in flight when the process
	// died. Not in the log, it is unknown; none after it was sent (unless
	// appending to the audit log itself failed, which koff reports on
	// stderr as it happens). A REST call is one request: what it has not
	// shown yet is unknown.
	firstUnlogged := true
	for _, tp := range sortedKeys(s.Positions) {
		if written[tp] {
			out.Written = append(out.Written, tp)
			continue
		}
		found := false
		if canRead {
			recs := recordsFor(s, tp)
			parsed, err := parseTP(tp)
			if err != nil {
				return ed, err
			}
			got, _, err := bw.ReadRecords(ctx, parsed, s.Positions[tp])
			if err != nil {
				return ed, fmt.Errorf("reconcile the interrupted %s of %s: %w", s.Kind, s.Connector, err)
			}
			found = auditBatchIn(recs, got, s.Path)
		}
		switch {
		case found:
			out.Written = append(out.Written, tp)
		case firstUnlogged || s.Path == plan.PathREST:
			out.Unknown = append(out.Unknown, tp)
		default:
			out.NotWritten = append(out.NotWritten, tp)
		}
		firstUnlogged = false
	}
	if len(out.Unknown) > 0 {
		// Still "interrupted" (the process died); undo covers the unknown.
		out.Message += "; may have been written: " + strings.Join(out.Unknown, ", ")
	}
	if e.Audit != nil {
		if err := e.Audit.Append(out); err != nil {
			return ed, fmt.Errorf("audit log: %w", err)
		}
	}
	ed.Outcome = &out
	return ed, nil
}

// groupOf is the consumer group a sink edit wrote ("" for source edits).
func groupOf(s audit.Entry) string {
	for _, ch := range s.Changes {
		for _, w := range ch.Writes {
			if g, ok := strings.CutPrefix(w, "group "); ok {
				return g
			}
		}
	}
	return ""
}

// groupHolds: every partition of the edit has its new committed offset.
func (e *Finder) groupHolds(ctx context.Context, group string, s audit.Entry) (bool, error) {
	poll, err := e.groupPoll(ctx, group)
	if err != nil {
		return false, err
	}
	now := map[string]int64{}
	for _, gp := range poll.Partitions {
		now[plan.SinkPartitionJSON(gp.TopicPartition)] = gp.Committed
	}
	for _, ch := range s.Changes {
		want := int64(-1)
		if string(ch.After) != "null" {
			it, err := plan.ParsePartition(string(ch.Partition))
			if err != nil {
				return false, err
			}
			o, err := model.ParseOffset(ch.After)
			if err != nil {
				return false, err
			}
			_, off, err := planner.SinkItem(plan.Item{Partition: it, Offset: o})
			if err != nil {
				return false, err
			}
			want = off
		}
		cur, ok := now[string(ch.Partition)]
		if !ok {
			cur = -1
		}
		if cur != want {
			return false, nil
		}
	}
	return true, nil
}

// recordsFor are an audited edit's records for one topic-partition, in
// the order they were produced.
func recordsFor(s audit.Entry, tp string) []audit.Record {
	var out []audit.Record
	for _, ch := range s.Changes {
		for _, r := range ch.Records {
			if r.TopicPartition == tp {
				out = append(out, r)
			}
		}
	}
	return out
}

// auditBatchIn says whether the records an audit line holds of one
// topic-partition are among got, as the write path looks for its own.
func auditBatchIn(want []audit.Record, got []store.Record, path plan.Path) bool {
	_, ok := apply.RecordsIn(path, len(want), func(i int) ([]byte, []byte) { return want[i].KeyBytes(), want[i].ValueBytes() }, got)
	return ok
}

func parseTP(s string) (model.TopicPartition, error) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			var n int
			if _, err := fmt.Sscanf(s[i+1:], "%d", &n); err != nil {
				break
			}
			return model.TopicPartition{Topic: s[:i], Partition: n}, nil
		}
	}
	return model.TopicPartition{}, fmt.Errorf("audit log: %q is not a topic-partition", s)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && tpStringLess(out[j], out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func tpStringLess(a, b string) bool {
	pa, ea := parseTP(a)
	pb, eb := parseTP(b)
	if ea != nil || eb != nil {
		return a < b
	}
	return plan.InWriteOrder(pa, pb)
}
