package edit

import "koff/model"

// homeTopic is the offsets topic a connector's offsets are planned in
// before Connect's REST API names its offsets.storage.topic (planREST):
// of the topics koff reads, the one holding the connector's offsets (its
// live ones, when several hold some), else the workers' topic, the first.
// Without it, a connector whose offsets live only in its own topic would
// be planned in the workers' topic, with no value before.
func (e *Editor) homeTopic(name string, topics []string) string {
	var stored, live []string
	for _, t := range topics {
		rows := e.Store.Partitions(model.ConnectorID{Topic: t, Name: name})
		if len(rows) > 0 {
			stored = append(stored, t)
		}
		for _, r := range rows {
			if r.Live && !r.Deleted {
				live = append(live, t)
				break
			}
		}
	}
	switch {
	case len(live) == 1:
		return live[0]
	case len(live) == 0 && len(stored) == 1:
		return stored[0]
	}
	return topics[0]
}
