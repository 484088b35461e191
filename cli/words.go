package cli

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"koff/edit/planner"
	"koff/model"
	"koff/model/store"
)

// ageText is a duration for people: the two largest whole units, "3s",
// "1m 2s", "2h 5m", "9d 2h". Tables show this; -o json keeps seconds.
func ageText(d time.Duration) string {
	if d < 0 {
		d = 0 // a producer clock slightly ahead of ours
	}
	return model.Span(d)
}

// intervalText is a flush interval: tenths of a second below 10s ("5.3s"),
// then as ageText.
func intervalText(d time.Duration) string {
	if d < 10*time.Second {
		t := math.Round(d.Seconds()*10) / 10
		return strings.TrimSuffix(fmt.Sprintf("%.1f", t), ".0") + "s"
	}
	return ageText(d.Round(time.Second))
}

// unknownConnector is the one refusal every reading command gives for a
// connector name koff finds nowhere, in the words of the writing commands'
// planner.UnknownConnectorError (less its --create hint):
// "unknown connector NAME: WHERE; did you mean X?". Connect's own 404
// messages are passed on verbatim instead.
func unknownConnector(name string, where, known []string) error {
	return &planner.UnknownConnectorError{Name: name, Closest: planner.ClosestNames(name, known), Where: where, NoCreate: true}
}

// noOffsets is the refusal of a reading command for a name it has nothing
// for: a connector Connect lists but that has written no offsets yet, or
// an unknown connector.
func noOffsets(store *store.Store, name string, inConnect bool, g *Globals) error {
	topics := strings.Join(g.OffsetsTopics, ", ")
	if inConnect {
		return fmt.Errorf("connector %s has no offsets yet: none in %s, and no consumer group with committed offsets", name, topics)
	}
	where := []string{"no offsets in " + topics, "no consumer group connect-" + name + " with committed offsets"}
	if g.ConnectURL != "" {
		where = append(where, "and Connect does not list it")
	}
	return unknownConnector(name, where, knownNames(store))
}

// knownNames are the connector names the store has seen, from the offsets
// topics, the sink groups and Connect.
func knownNames(store *store.Store) []string {
	var names []string
	for _, c := range store.Connectors() {
		names = append(names, c.ID.Name)
	}
	return names
}

// hasOffsets reports whether the store holds any offsets of connector name.
func hasOffsets(store *store.Store, name string) bool {
	for _, c := range store.Connectors() {
		if c.ID.Name == name && (c.Partitions > 0 || c.Deleted > 0) {
			return true
		}
	}
	return false
}

// waitingFor says that a connector has no offsets yet, naming close
// matches in case it is a typo.
func waitingFor(name string, g *Globals, known []string) string {
	msg := fmt.Sprintf("connector %s has no offsets in %s yet", name, strings.Join(g.OffsetsTopics, ", "))
	if c := planner.ClosestNames(name, known); len(c) > 0 {
		msg += " (did you mean " + strings.Join(c, ", ") + "?)"
	}
	return msg
}

// sinkGroupOf is connect-NAME when that consumer group has committed
// offsets, the evidence that NAME is a sink; "" otherwise.
func sinkGroupOf(ctx context.Context, g *Globals, name string) string {
	group := "connect-" + name
	polls, err := g.kafkaConfig().GroupPolls(ctx, []string{group})
	if err != nil {
		return ""
	}
	for _, p := range polls {
		if p.Group == group && len(p.Partitions) > 0 {
			return group
		}
	}
	return ""
}
