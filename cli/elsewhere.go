package cli

import (
	"fmt"
	"os/signal"
	"sync"

	"koff/edit"
)

// otherClusters opens the Connect clusters koff contexts name (a move's
// target, and its undo's) when first asked, each read as every edit
// session reads its own (its Kafka, offsets topics, config topic, REST),
// with this run's audit log, read-only flag and signals.
type otherClusters struct {
	g         *Globals
	env       Env
	interrupt <-chan struct{}

	mu       sync.Mutex
	sessions map[string]*editSession
}

func (o *otherClusters) editor(where string) (*edit.Editor, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if s, ok := o.sessions[where]; ok {
		return s.ed, nil
	}
	if o.g.contexts == nil || o.g.contexts.Contexts[where] == nil {
		var names []string
		if o.g.contexts != nil {
			names = o.g.contexts.names()
		}
		return nil, fmt.Errorf("no context %s in %s (have: %v)", where, o.g.contextFile, names)
	}
	ng, err := switchContext(o.g, where, o.env)
	if err != nil {
		return nil, err
	}
	if ng.AuditLog == "" {
		ng.AuditLog = o.g.auditPath(o.env)
	}
	s, err := openEditSession(ng, o.env)
	if err != nil {
		return nil, err
	}
	// The caller's signals stop the operation, between its steps on
	// either cluster.
	signal.Stop(s.sigs)
	s.ed.Interrupt = o.interrupt
	s.ed.Elsewhere = nil
	if o.sessions == nil {
		o.sessions = map[string]*editSession{}
	}
	o.sessions[where] = s
	return s.ed, nil
}

func (o *otherClusters) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range o.sessions {
		s.close()
	}
	o.sessions = nil
}
