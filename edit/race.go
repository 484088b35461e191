package edit

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
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

// watch looks for other writers of an edit's keys, from the record each
// key's planned value came from to well after the edit's own record.
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
type watch struct {
	e  *Editor
	p  *plan.Plan
	bs []batch
	rr BatchWriter

	sinceOf   map[writeRef]int64             // a record of the key at or after this is another writer's
	positions map[model.TopicPartition]int64 // log-end offsets before the first write
	checked   map[model.TopicPartition]int64 // log-end offsets when last looked at
	offsets   map[model.TopicPartition]int64 // where this edit's batch landed (-1: unknown)
	restored  []string
}

func (e *Editor) newWatch(p *plan.Plan, bs []batch) *watch {
	w := &watch{e: e, p: p, bs: bs, sinceOf: map[writeRef]int64{}, positions: map[model.TopicPartition]int64{},
		checked: map[model.TopicPartition]int64{}, offsets: map[model.TopicPartition]int64{}}
	if rr, ok := e.Kafka.(BatchWriter); ok {
		w.rr = rr
	}
	for _, b := range bs {
		w.offsets[b.tp] = -1
	}
	return w
}

func (w *watch) canRead() bool { return w.rr != nil }

// since reads, in one pass with the optimistic check, the offset of the
// record each key's planned value came from.
func (w *watch) since() error {
	rp, _ := w.e.Store.(readPositions)
	for _, b := range w.bs {
		for _, r := range b.refs {
			wr := writeOf(w.p, r)
			// How far the Store has read, taken before the value: every
			// record before it is in the value compared below, so only
			// the log after it can hold another writer's record, however
			// long ago the key itself was written.
			readTo := int64(-1)
			if rp != nil {
				readTo = rp.ReadTo(wr.TopicPartition)
			}
			d, ok := w.e.Store.Partition(model.PartitionID{TopicPartition: wr.TopicPartition, Key: string(wr.Key)})
			var now []byte
			if ok && !d.Deleted {
				now = d.Value
			}
			if !bytes.Equal(now, wr.Before) {
				return &ConflictError{Partition: w.p.Changes[r.ch].PartitionJSON, Now: now}
			}
			switch {
			case ok:
				w.sinceOf[r] = max(d.RecordOffset+1, readTo)
			case readTo >= 0:
				w.sinceOf[r] = readTo
			default:
				w.sinceOf[r] = 0
			}
		}
	}
	return nil
}

// precheck reads every target partition from the oldest planned record
// to its end: any other record of a key is a conflict, before anything
// is written. It also fixes the positions the audit log records.
func (w *watch) precheck(ctx context.Context) error {
	if w.rr == nil {
		return nil
	}
	for _, b := range w.bs {
		from := int64(-1)
		for _, r := range b.refs {
			if s := w.sinceOf[r]; from < 0 || s < from {
				from = s
			}
		}
		recs, end, err := w.rr.ReadRecords(ctx, b.tp, from)
		if err != nil {
			return fmt.Errorf("look for other writers before writing: %w; nothing written", err)
		}
		if err := w.conflict(b, recs); err != nil {
			return err
		}
		w.positions[b.tp], w.checked[b.tp] = end, end
	}
	return nil
}

// recheck looks again just before a batch's produce request.
func (w *watch) recheck(ctx context.Context, b batch) error {
	if w.rr == nil {
		return nil
	}
	recs, end, err := w.rr.ReadRecords(ctx, b.tp, w.checked[b.tp])
	if err != nil {
		return fmt.Errorf("look for other writers of %s: %w", b.tp, err)
	}
	if err := w.conflict(b, recs); err != nil {
		return err
	}
	w.checked[b.tp] = end
	return nil
}

func (w *watch) conflict(b batch, recs []store.Record) error {
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

func (w *watch) positionsByName() map[string]int64 {
	if len(w.positions) == 0 {
		return nil
	}
	out := map[string]int64{}
	for tp, off := range w.positions {
		out[tp.String()] = off
	}
	return out
}

// reconcile says which batches are in the log after the positions: every
// record of the batch is there, with this edit's value.
func (w *watch) reconcile(ctx context.Context, bs []batch) (written, notWritten []model.TopicPartition) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for _, b := range bs {
		recs, _, err := w.rr.ReadRecords(ctx, b.tp, w.positions[b.tp])
		if err == nil {
			if at, ok := batchIn(w.p, b, recs); ok {
				w.offsets[b.tp] = at
				written = append(written, b.tp)
				continue
			}
		}
		notWritten = append(notWritten, b.tp)
	}
	return written, notWritten
}

// batchIn finds a batch's records, in order, among recs; it returns the
// offset of the first.
func batchIn(p *plan.Plan, b batch, recs []store.Record) (int64, bool) {
	first, j := int64(-1), 0
	for _, rec := range recs {
		if j == len(b.refs) {
			break
		}
		wr := writeOf(p, b.refs[j])
		if bytes.Equal(rec.Key, wr.Key) && plan.SameRecordValue(rec.Value, wr.Value, p.Path) {
			if j == 0 {
				first = rec.Offset
			}
			j++
		}
	}
	return first, j == len(b.refs) && len(b.refs) > 0
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
func (w *watch) judge(ctx context.Context, written []model.TopicPartition) ([]verdict, error) {
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

// offsetsReader is Connect's GET /connectors/NAME/offsets (*connect.Client).
type offsetsReader interface {
	Offsets(ctx context.Context, name string) (connect.Offsets, error)
}

// restShows: Connect's GET offsets returns every change's new offset (a
// reset partition is absent or null). A REST edit is verified by GET as
// well as by the topic the worker wrote.
func (e *Editor) restShows(ctx context.Context, p *plan.Plan) bool {
	or, ok := e.REST.(offsetsReader)
	if !ok || p.Path != plan.PathREST {
		return true
	}
	got, err := or.Offsets(ctx, p.Connector)
	if err != nil {
		return false
	}
	for _, ch := range p.Changes {
		var now []byte
		for _, o := range got.Offsets {
			part, err := java.ParseJSON(o.Partition)
			if err != nil {
				continue
			}
			if po, ok := part.(java.Object); ok && ch.Partition != nil && model.SameJSON(po, ch.Partition) {
				if string(o.Offset) != "null" {
					now = o.Offset
				}
			}
		}
		if !plan.SameRecordValue(now, ch.After, plan.PathREST) {
			return false
		}
	}
	return true
}

// settle verifies a written edit: read back by the tailer (and by GET for
// REST edits), and judged against other writers. A lost key gets the
// winner's value back.
func (e *Editor) settle(ctx context.Context, p *plan.Plan, w *watch, res *Result) {
	deadline := time.Now().Add(e.verifyTimeout())
	for {
		visible := e.writesVisible(p) && e.restShows(ctx, p)
		if w.rr == nil {
			if visible {
				res.Verified = true
				return
			}
		} else if vs, err := w.judge(ctx, res.Written); err == nil {
			var lost, over []verdict
			seen := true
			for _, v := range vs {
				switch {
				case v.ours < 0:
					seen = false
				case v.winner != nil:
					lost = append(lost, v)
				case v.overwritten != nil:
					over = append(over, v)
				}
			}
			if len(lost) > 0 {
				w.restore(ctx, lost)
				for _, v := range lost {
					res.Lost = append(res.Lost, Contest{Partition: p.Changes[v.ref.ch].PartitionJSON, Value: v.winner.Value, By: w.e.writerOf(*v.winner)})
				}
				return
			}
			if seen && len(over) == 0 && visible {
				res.Verified = true
				return
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				for _, v := range over {
					res.Overwritten = append(res.Overwritten, Contest{Partition: p.Changes[v.ref.ch].PartitionJSON, Value: v.overwritten.Value, By: w.e.writerOf(*v.overwritten)})
				}
				return
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// restore puts the winner's value back under every key this edit lost,
// where this edit's record is still the last: the winner planned from the
// same value and wrote first, so its value is the one that stands.
func (w *watch) restore(ctx context.Context, lost []verdict) {
	byTP := map[model.TopicPartition][]store.Record{}
	var order []model.TopicPartition
	now := w.e.now()
	for _, v := range lost {
		if !v.lastIsOurs {
			continue // someone wrote after us: their value stands
		}
		wr := writeOf(w.p, v.ref)
		if _, ok := byTP[wr.TopicPartition]; !ok {
			order = append(order, wr.TopicPartition)
		}
		byTP[wr.TopicPartition] = append(byTP[wr.TopicPartition], store.Record{Topic: wr.Topic, Partition: wr.Partition, Key: wr.Key, Value: v.winner.Value, Time: now})
		w.restored = append(w.restored, w.p.Changes[v.ref.ch].PartitionJSON)
	}
	for _, tp := range order {
		_, _ = w.e.produce(context.WithoutCancel(ctx), tp, byTP[tp])
	}
}

// whoWrote names the edit in the audit log that wrote value under key,
// newest first ("" when the audit log does not know it).
func (e *Editor) whoWrote(key, value []byte) string {
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
