package apply

import (
	"koff/edit/plan"
	"koff/model"
)

// writeRef is one Write of a plan: p.Changes[ch].Writes[w].
type writeRef struct{ ch, w int }

// batch is every write of one topic-partition: one produce request.
type batch struct {
	tp   model.TopicPartition
	refs []writeRef
}

func writeOf(p *plan.Plan, r writeRef) plan.Write { return p.Changes[r.ch].Writes[r.w] }

// batches groups a plan's writes by topic-partition, in the fixed order
// the writes go in (topic, then partition number).
func batches(p *plan.Plan) []batch {
	idx := map[model.TopicPartition]int{}
	var out []batch
	for ci, ch := range p.Changes {
		for wi, w := range ch.Writes {
			i, ok := idx[w.TopicPartition]
			if !ok {
				i = len(out)
				idx[w.TopicPartition] = i
				out = append(out, batch{tp: w.TopicPartition})
			}
			out[i].refs = append(out[i].refs, writeRef{ci, wi})
		}
	}
	sortBatches(out)
	return out
}

func sortBatches(bs []batch) {
	for i := 1; i < len(bs); i++ {
		for j := i; j > 0 && plan.InWriteOrder(bs[j].tp, bs[j-1].tp); j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
}

func without(bs []batch, tps []model.TopicPartition) []batch {
	drop := map[model.TopicPartition]bool{}
	for _, tp := range tps {
		drop[tp] = true
	}
	var out []batch
	for _, b := range bs {
		if !drop[b.tp] {
			out = append(out, b)
		}
	}
	return out
}
