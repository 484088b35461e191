package ui

import "koff/edit"

// shownPlan is a copy of a plan for the confirmation dialog to draw: every
// name, state, value, key and message in it came from outside (the topic,
// Connect, the broker) and is cleaned, so the dialog can lay it out as it
// is. The dialog applies the plan itself, untouched.
func shownPlan(p *edit.Plan) *edit.Plan {
	c := *p
	c.Connector, c.From, c.State = clean(c.Connector), clean(c.From), clean(c.State)
	c.Topic, c.Group = clean(c.Topic), clean(c.Group)
	c.PathReason = clean(c.PathReason)
	c.Command = cleanBlock(c.Command, detailMax)
	c.Warnings = make([]string, len(p.Warnings))
	for i, w := range p.Warnings {
		c.Warnings[i] = clean(w)
	}
	c.Changes = make([]edit.Change, len(p.Changes))
	for i, ch := range p.Changes {
		ch.PartitionJSON = cleanBlock(ch.PartitionJSON, detailMax)
		ch.Before, ch.After = shownJSON(ch.Before), shownJSON(ch.After)
		ch.Writes = append([]edit.Write(nil), ch.Writes...)
		for j := range ch.Writes {
			w := &ch.Writes[j]
			w.Topic = clean(w.Topic)
			w.Key, w.Before, w.Value = shownJSON(w.Key), shownJSON(w.Before), shownJSON(w.Value)
		}
		c.Changes[i] = ch
	}
	c.Sink = append([]edit.SinkChange(nil), p.Sink...)
	for i := range c.Sink {
		c.Sink[i].Topic, c.Sink[i].Warning = clean(c.Sink[i].Topic), clean(c.Sink[i].Warning)
	}
	return &c
}

func shownJSON(b []byte) []byte {
	if b == nil {
		return nil
	}
	return []byte(cleanBlock(string(b), detailMax))
}
