package apply

import (
	"context"
	"time"

	"koff/connect"
	"koff/edit/plan"
	"koff/model"
	"koff/model/java"
	"koff/model/store"
)

// OffsetsReader is Connect's GET /connectors/NAME/offsets (*connect.Client).
type OffsetsReader interface {
	Offsets(ctx context.Context, name string) (connect.Offsets, error)
}

// restShows: Connect's GET offsets returns every change's new offset (a
// reset partition is absent or null). A REST edit is verified by GET as
// well as by the topic the worker wrote.
func (e *Applier) restShows(ctx context.Context, p *plan.Plan) bool {
	or, ok := e.REST.(OffsetsReader)
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

// verify verifies a written edit: read back by the tailer (and by GET for
// REST edits), and judged against other writers. A lost key gets the
// winner's value back.
func (e *Applier) verify(ctx context.Context, p *plan.Plan, w *logView, res *Result) {
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
func (w *logView) restore(ctx context.Context, lost []verdict) {
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

// verifySink re-reads the group until every committed offset is the new
// one. The group coordinator holds one committed offset per partition, so
// a different one seen twice, a poll apart, after koff's commit was
// acknowledged is another writer's commit that replaced it: said as such.
func (e *Applier) verifySink(ctx context.Context, p *plan.Plan) (bool, []Contest) {
	deadline := time.Now().Add(e.verifyTimeout())
	var other map[model.TopicPartition]int64
	for {
		if poll, err := e.groupPoll(ctx, p.Group); err == nil {
			now := map[model.TopicPartition]int64{}
			for _, gp := range poll.Partitions {
				now[gp.TopicPartition] = gp.Committed
			}
			diff := map[model.TopicPartition]int64{}
			for _, c := range p.Sink {
				cur, has := now[c.TopicPartition]
				if !has {
					cur = -1
				}
				if cur != c.After {
					diff[c.TopicPartition] = cur
				}
			}
			if len(diff) == 0 {
				return true, nil
			}
			if other != nil && sameCommits(other, diff) {
				var out []Contest
				for _, c := range p.Sink {
					if cur, ok := diff[c.TopicPartition]; ok {
						ct := Contest{Partition: plan.SinkPartitionJSON(c.TopicPartition)}
						if cur >= 0 {
							ct.Value = plan.SinkOffsetJSON(cur)
						}
						out = append(out, ct)
					}
				}
				return false, out
			}
			other = diff
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false, nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func sameCommits(a, b map[model.TopicPartition]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for tp, v := range a {
		if w, ok := b[tp]; !ok || w != v {
			return false
		}
	}
	return true
}

func (e *Applier) writesVisible(p *plan.Plan) bool {
	for _, ch := range p.Changes {
		for _, w := range ch.Writes {
			d, ok := e.Store.Partition(model.PartitionID{TopicPartition: w.TopicPartition, Key: string(w.Key)})
			if !ok {
				return false
			}
			if w.Value == nil {
				if !d.Deleted {
					return false
				}
				continue
			}
			if d.Deleted || !plan.SameValue(d.Value, w.Value, p.Path) {
				return false
			}
		}
	}
	return true
}
