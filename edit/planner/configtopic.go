package planner

import (
	"fmt"

	"koff/edit/plan"
	"koff/model"
)

// configOf is the config topic's word on a connector; ok is false when
// koff reads no config topic.
func (e *Planner) configOf(name string) (model.ConnectorConfig, string, bool) {
	return plan.ConfigOf(e.Configs, name)
}

// planConfigTopic fills what the config topic tells of a source connector
// when Connect's REST API is not asked: its target state and its own
// offsets topic. Without a config topic koff cannot know the own topic,
// and says so (Plan.Unsure).
func (e *Planner) planConfigTopic(p *plan.Plan) error {
	c, topic, ok := e.configOf(p.Connector)
	switch {
	case !ok:
		p.Unsure = "own offsets topic unknown (no --connect-url, no config topic)"
		return nil
	case c.Config == nil:
		p.Absent = true
		p.ConfigTopic = topic
		p.PathReason = "not in Connect's config topic " + topic + ": written to the offsets topic"
		return nil
	}
	p.ConfigTopic, p.Target, p.Config = topic, c.TargetState, c.Config
	if t := c.OwnOffsetsTopic(); t != "" {
		if !Contains(e.topics(), t) {
			return fmt.Errorf("connector %s keeps its offsets in its own topic %s (offsets.storage.topic in config topic %s): add --offsets-topic %s so koff can read and verify it", p.Connector, t, topic, t)
		}
		p.Topic = t
	}
	return nil
}

// SinkGroupOf is the consumer group of a sink when REST is not asked: the
// one given (--group), else the one its config in the config topic names
// (consumer.override.group.id, else connect-NAME); fromConfig says the
// config topic said it.
func (e *Planner) SinkGroupOf(name, given string) (group string, fromConfig bool) {
	if given != "" {
		return given, false
	}
	if c, _, ok := e.configOf(name); ok && c.Config != nil && e.REST == nil {
		return model.SinkGroupName(name, c.Config), true
	}
	return "connect-" + name, false
}
