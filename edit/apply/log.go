package apply

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"koff/edit/plan"
	"koff/model"
	"koff/model/store"
)

// BatchWriter is what kafka.Config offers beyond Writer: one produce
// request per topic-partition that tells the offset it landed at, and a
// read of a partition's records from an offset to its end. With it an
// edit can see other writers of the same keys; without it (test fakes)
// it trusts the optimistic check alone.
type BatchWriter interface {
	ProduceBatch(ctx context.Context, tp model.TopicPartition, recs []store.Record) (int64, error)
	ReadRecords(ctx context.Context, tp model.TopicPartition, from int64) ([]store.Record, int64, error)
}

// readPositions is what store.Store adds to Offsets: how far it has read
// each topic-partition.
type readPositions interface {
	ReadTo(tp model.TopicPartition) int64
}

// logView is the edit's view of the partitions it writes: it looks for
// other writers of its keys, from the record each key's planned value came
// from to well after the edit's own record.
//
// Two editors who planned from the same value both pass the optimistic
// check; what decides between them is the order of their records in the
// partition the key lives in, which Kafka makes total. The first record
// of a key after the one the plan read wins. Before writing, an edit that
// finds another writer's record there refuses; after writing, an edit
// whose record came second (both checked before either wrote) has lost:
// it puts the winner's value back and says so, and the winner, which
// waits until its value is again the one in force, reports verified. So
// of two edits of one key exactly one reports verified.
type logView struct {
	e  *Applier
	p  *plan.Plan
	bs []batch
	rr BatchWriter

	sinceOf   map[writeRef]int64             // a record of the key at or after this is another writer's
	positions map[model.TopicPartition]int64 // log-end offsets before the first write
	checked   map[model.TopicPartition]int64 // log-end offsets when last looked at
	offsets   map[model.TopicPartition]int64 // where this edit's batch landed (-1: unknown)
	restored  []string
}

func (e *Applier) newLogView(p *plan.Plan, bs []batch) *logView {
	w := &logView{e: e, p: p, bs: bs, sinceOf: map[writeRef]int64{}, positions: map[model.TopicPartition]int64{},
		checked: map[model.TopicPartition]int64{}, offsets: map[model.TopicPartition]int64{}}
	if rr, ok := e.Kafka.(BatchWriter); ok {
		w.rr = rr
	}
	for _, b := range bs {
		w.offsets[b.tp] = -1
	}
	return w
}

func (w *logView) canRead() bool { return w.rr != nil }

func (w *logView) conflict(b batch, recs []store.Record) error {
	for _, r := range b.refs {
		wr := writeOf(w.p, r)
		var hit *store.Record
		for i := range recs {
			if recs[i].Offset >= w.sinceOf[r] && bytes.Equal(recs[i].Key, wr.Key) {
				hit = &recs[i]
			}
		}
		if hit != nil {
			return &ConflictError{Partition: w.p.Changes[r.ch].PartitionJSON, Now: hit.Value, By: w.e.writerOf(*hit)}
		}
	}
	return nil
}

// batchIn finds a batch's records among recs; it returns the offset of
// the first.
func batchIn(p *plan.Plan, b batch, recs []store.Record) (int64, bool) {
	return RecordsIn(p.Path, len(b.refs), func(i int) ([]byte, []byte) {
		wr := writeOf(p, b.refs[i])
		return wr.Key, wr.Value
	}, recs)
}

// RecordsIn finds n written records (record i's key and value) among recs,
// read from a position before they were written, and returns the offset of
// the first. koff's own produce request (the offsets topic path) writes
// them in their order; a worker answering a REST call writes them in the
// order of its own map (OffsetStorageWriter.doFlush iterates a HashMap of
// partitions), so there each is found wherever it is.
func RecordsIn(path plan.Path, n int, want func(i int) (key, value []byte), recs []store.Record) (int64, bool) {
	if n == 0 {
		return -1, false
	}
	is := func(rec store.Record, i int) bool {
		k, v := want(i)
		return bytes.Equal(rec.Key, k) && plan.SameRecordValue(rec.Value, v, path)
	}
	first := int64(-1)
	if path != plan.PathTopic {
		for i := range n {
			at := slices.IndexFunc(recs, func(rec store.Record) bool { return is(rec, i) })
			if at < 0 {
				return -1, false
			}
			if first < 0 || recs[at].Offset < first {
				first = recs[at].Offset
			}
		}
		return first, true
	}
	j := 0
	for _, rec := range recs {
		if j == n {
			break
		}
		if is(rec, j) {
			if j == 0 {
				first = rec.Offset
			}
			j++
		}
	}
	return first, j == n
}

// verdict of one key after the write.
type verdict struct {
	ref         writeRef
	ours        int64 // offset of this edit's record (-1: not seen yet)
	winner      *store.Record
	overwritten *store.Record
	lastIsOurs  bool
}

// judge reads each written partition from the positions and decides, per
// key, who won.
func (w *logView) judge(ctx context.Context, written []model.TopicPartition) ([]verdict, error) {
	in := map[model.TopicPartition]bool{}
	for _, tp := range written {
		in[tp] = true
	}
	var out []verdict
	for _, b := range w.bs {
		if !in[b.tp] {
			continue
		}
		recs, _, err := w.rr.ReadRecords(ctx, b.tp, w.positions[b.tp])
		if err != nil {
			return nil, err
		}
		if w.offsets[b.tp] < 0 {
			if at, ok := batchIn(w.p, b, recs); ok {
				w.offsets[b.tp] = at
			}
		}
		for j, r := range b.refs {
			wr := writeOf(w.p, r)
			v := verdict{ref: r, ours: -1}
			var list []store.Record
			for _, rec := range recs {
				if bytes.Equal(rec.Key, wr.Key) {
					list = append(list, rec)
				}
			}
			if base := w.offsets[b.tp]; base >= 0 {
				if w.p.Path == plan.PathTopic {
					v.ours = base + int64(j)
				} else {
					for _, rec := range list {
						if rec.Offset >= base && plan.SameRecordValue(rec.Value, wr.Value, w.p.Path) {
							v.ours = rec.Offset
							break
						}
					}
				}
			}
			if v.ours >= 0 && len(list) > 0 {
				first, last := list[0], list[len(list)-1]
				switch {
				case first.Offset != v.ours:
					v.winner = &first
				case last.Offset != v.ours && !plan.SameRecordValue(last.Value, wr.Value, w.p.Path):
					v.overwritten = &last
				}
				v.lastIsOurs = last.Offset == v.ours
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// whoWrote names the edit in the audit log that wrote value under key,
// newest first ("" when the audit log does not know it).
func (e *Applier) whoWrote(key, value []byte) string {
	if e.Audit == nil {
		return ""
	}
	edits, err := e.Audit.Edits()
	if err != nil {
		return ""
	}
	for i := len(edits) - 1; i >= 0; i-- {
		s := edits[i].Start
		for _, ch := range s.Changes {
			for _, r := range ch.Records {
				if bytes.Equal(r.KeyBytes(), key) && plan.SameRecordValue(r.ValueBytes(), value, s.Path) {
					who := s.User
					if s.Host != "" {
						who += "@" + s.Host
					}
					return fmt.Sprintf("%s (koff %s at %s, pid %d)", who, s.Kind, model.TimeText(s.Time), s.PID)
				}
			}
		}
	}
	return ""
}

// writerOf names who wrote a record: the edit in the audit log that wrote
// it, else what its headers say (Connect writes none; koff's direct writes
// carry its header), with where and when it landed.
func (e *Applier) writerOf(rec store.Record) string {
	if by := e.whoWrote(rec.Key, rec.Value); by != "" {
		return by
	}
	at := fmt.Sprintf("%s offset %d", model.TopicPartition{Topic: rec.Topic, Partition: rec.Partition}, rec.Offset)
	if !rec.Time.IsZero() {
		at += " at " + rec.Time.UTC().Format("15:04:05.000Z")
	}
	if rec.Koff {
		return fmt.Sprintf("another koff, not in this audit log (a record with koff's header, %s)", at)
	}
	return fmt.Sprintf("a Connect worker: the connector's task (a record without koff's header, %s)", at)
}
