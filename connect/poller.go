package connect

import (
	"context"
	"time"

	"koff/model"
)

// StatusSink receives REST polls (model.Store implements it).
type StatusSink interface {
	SetREST(model.RESTStatus)
	SetConnectorTopics(name string, topics []string)
}

// topicsEvery is how often a source connector's topics are re-read: they
// change rarely, and each read is one request per connector.
const topicsEvery = 30 * time.Second

// Poll reads every connector's status and config from Connect every
// interval, one request per poll (?expand=status&expand=info), and hands
// the result on, until ctx ends. A failed poll keeps the last states and
// reports the error.
func (c *Client) Poll(ctx context.Context, every time.Duration, sink StatusSink) {
	version := ""
	topicsAt := map[string]time.Time{}
	tracking := true
	for {
		r := model.RESTStatus{URL: c.URL(), At: time.Now()}
		if version == "" {
			if info, err := c.ServerInfo(ctx); err == nil {
				version = info.Version
			}
		}
		r.Version = version
		conns, err := c.Connectors(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			r.Err = err.Error()
		} else {
			r.Connectors = make(map[string]model.ConnectorState, len(conns))
			for name, cn := range conns {
				r.Connectors[name] = toModel(name, cn)
			}
		}
		sink.SetREST(r)
		if err == nil && tracking {
			tracking = c.pollTopics(ctx, conns, topicsAt, sink)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

func toModel(name string, cn Connector) model.ConnectorState {
	st := model.ConnectorState{
		Name:     name,
		Type:     cn.Status.Type,
		State:    string(cn.Status.Connector.State),
		WorkerID: cn.Status.Connector.WorkerID,
		Config:   cn.Info.Config,
	}
	if st.Type == "" {
		st.Type = cn.Info.Type
	}
	for _, t := range cn.Status.Tasks {
		st.Tasks = append(st.Tasks, model.TaskState{ID: t.ID, State: string(t.State), WorkerID: t.WorkerID, Trace: t.Trace})
	}
	return st
}

// pollTopics reads the topics of source connectors not read recently. It
// reports false once Connect says topic tracking is disabled.
func (c *Client) pollTopics(ctx context.Context, conns map[string]Connector, at map[string]time.Time, sink StatusSink) bool {
	for name, cn := range conns {
		if cn.Status.Type == "sink" || time.Since(at[name]) < topicsEvery {
			continue
		}
		topics, err := c.Topics(ctx, name)
		if IsTopicTrackingDisabled(err) {
			return false
		}
		if err != nil {
			continue
		}
		at[name] = time.Now()
		sink.SetConnectorTopics(name, topics)
	}
	return true
}
