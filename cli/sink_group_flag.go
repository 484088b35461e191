package cli

import (
	"context"
	"fmt"

	"koff/model"
	"koff/model/store"
)

const sinkGroupFlagHelp = "sink: its consumer group, when neither Connect's REST API nor its config topic says (a consumer.override.group.id names another group than connect-NAME)"

// nameSinkGroup makes the store read connector name as a sink reading as
// group, and polls that group. Where Connect's REST API lists the
// connector, its word stands: another group is refused.
func nameSinkGroup(ctx context.Context, g *Globals, store *store.Store, name, group string) error {
	if err := restSinkGroup(store, name, group); err != nil {
		return err
	}
	store.NameSinkGroup(name, group)
	return g.kafkaConfig().PollGroupsOnce(ctx, store)
}

// restSinkGroup refuses a --group that Connect's REST API contradicts.
func restSinkGroup(store *store.Store, name, group string) error {
	for _, c := range store.ConnectorList() {
		if c.ID.Name != name || !c.InREST {
			continue
		}
		if c.Type != "sink" {
			return fmt.Errorf("%s is a %s connector (Connect's REST API): --group is for a sink", name, c.Type)
		}
		if got := model.SinkGroupName(name, c.REST.Config); got != group {
			return fmt.Errorf("sink %s uses group %s (Connect's REST API), not %s", name, got, group)
		}
	}
	return nil
}
