package dialogs

import (
	"koff/edit/plan"
	"koff/ui/kit"
)

// shownPlan is a copy of a plan for the confirmation dialog to draw: every
// name, state, value, key and message in it came from outside (the topic,
// Connect, the broker) and is cleaned, so the dialog can lay it out as it
// is. The dialog applies the plan itself, untouched.
func shownPlan(p *plan.Plan) *plan.Plan {
	c := *p
	c.Connector, c.From, c.State = kit.Clean(c.Connector), kit.Clean(c.From), kit.Clean(c.State)
	c.Topic, c.Group = kit.Clean(c.Topic), kit.Clean(c.Group)
	c.PathReason = kit.Clean(c.PathReason)
	c.Command = kit.CleanBlock(c.Command, kit.DetailMax)
	c.Warnings = make([]string, len(p.Warnings))
	for i, w := range p.Warnings {
		c.Warnings[i] = kit.Clean(w)
	}
	c.Changes = make([]plan.Change, len(p.Changes))
	for i, ch := range p.Changes {
		ch.PartitionJSON = kit.CleanBlock(ch.PartitionJSON, kit.DetailMax)
		ch.Before, ch.After = shownJSON(ch.Before), shownJSON(ch.After)
		ch.Writes = append([]plan.Write(nil), ch.Writes...)
		for j := range ch.Writes {
			w := &ch.Writes[j]
			w.Topic = kit.Clean(w.Topic)
			w.Key, w.Before, w.Value = shownJSON(w.Key), shownJSON(w.Before), shownJSON(w.Value)
		}
		c.Changes[i] = ch
	}
	c.Sink = append([]plan.SinkChange(nil), p.Sink...)
	for i := range c.Sink {
		c.Sink[i].Topic, c.Sink[i].Warning = kit.Clean(c.Sink[i].Topic), kit.Clean(c.Sink[i].Warning)
	}
	return &c
}

func shownJSON(b []byte) []byte {
	if b == nil {
		return nil
	}
	return []byte(kit.CleanBlock(string(b), kit.DetailMax))
}
