package apply

import (
	"bytes"
	"context"
	"fmt"

	"koff/model"
)

// noOtherWriters: before the first write, no other writer's record for
// any key may have landed since the record the plan read.
func (w *logView) noOtherWriters(ctx context.Context) error {
	if err := w.since(); err != nil {
		return err
	}
	return w.precheck(ctx)
}

// since reads, in one pass with the optimistic check, the offset of the
// record each key's planned value came from.
func (w *logView) since() error {
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
func (w *logView) precheck(ctx context.Context) error {
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
