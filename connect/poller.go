package connect

import (
	"context"
	"time"

	"koff/model"
)

// StatusSink receives REST polls (store.Store implements it).
type StatusSink interface {
	SetREST(model.RESTStatus)
	SetConnectorTopics(name string, topics []string)
}

// topicsEvery is how often a source connector's topics are re-read: they
// change rarely, and each read is one request per connector.
const topicsEvery = 30 * time.Second

// Poller reads every connector's status and config in one request per
// poll (?expand=status&expand=info), and source connectors' topics now and
// then, into a StatusSink.
type Poller struct {
	c        *Client
	sink     StatusSink
	version  string
	topicsAt map[string]time.Time
	noTopics bool // Connect said topic tracking is disabled
}

// NewPoller returns a Poller feeding sink.
func (c *Client) NewPoller(sink StatusSink) *Poller {
	return &Poller{c: c, sink: sink, topicsAt: map[string]time.Time{}}
}

// Poll polls every interval until ctx ends. A failed poll keeps the last
// states and reports the error.
func (c *Client) Poll(ctx context.Context, every time.Duration, sink StatusSink) {
	p := c.NewPoller(sink)
	for {
		p.Once(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}

// Once polls once and returns the poll's error, if any.
func (p *Poller) Once(ctx context.Context) error {
	r := model.RESTStatus{URL: p.c.URL(), At: time.Now()}
	if p.version == "" {
		if info, err := p.c.ServerInfo(ctx); err == nil {
			p.version = info.Version
		}
	}
	r.Version = p.version
	conns, err := p.c.Connectors(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		r.Err = err.Error()
		p.sink.SetREST(r)
		return err
	}
	r.Connectors = make(map[string]model.ConnectorState, len(conns))
	for name, cn := range conns {
		r.Connectors[name] = toModel(name, cn)
	}
	p.sink.SetREST(r)
	if !p.noTopics {
		p.pollTopics(ctx, conns)
	}
	return nil
}

// pollTopics reads the topics of source connectors not read recently.
func (p *Poller) pollTopics(ctx context.Context, conns map[string]Connector) {
	for name, cn := range conns {
		if cn.Status.Type == "sink" || time.Since(p.topicsAt[name]) < topicsEvery {
			continue
		}
		topics, err := p.c.Topics(ctx, name)
		if IsTopicTrackingDisabled(err) {
			p.noTopics = true
			return
		}
		if err != nil {
			continue
		}
		// A connector that has not produced yet has no active topics:
		// ask again next poll rather than in topicsEvery.
		if len(topics) > 0 {
			p.topicsAt[name] = time.Now()
		}
		p.sink.SetConnectorTopics(name, topics)
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
