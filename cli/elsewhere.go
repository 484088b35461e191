package cli

import (
	"fmt"
	"os/signal"

	"koff/edit"
)

// elsewhere is the Editor of the Connect cluster a koff context names (a
// move's target): its own Kafka, offsets topics, config topic and REST,
// read as every edit session reads them, with this run's audit log,
// read-only flag and signals.
func (s *editSession) elsewhere(where string) (*edit.Editor, error) {
	s.othersMu.Lock()
	defer s.othersMu.Unlock()
	if o, ok := s.others[where]; ok {
		return o.ed, nil
	}
	if s.g.contexts == nil || s.g.contexts.Contexts[where] == nil {
		names := []string{}
		if s.g.contexts != nil {
			names = s.g.contexts.names()
		}
		return nil, fmt.Errorf("no context %s in %s (have: %v)", where, s.g.contextFile, names)
	}
	ng, err := switchContext(s.g, where, s.env)
	if err != nil {
		return nil, err
	}
	if ng.AuditLog == "" {
		ng.AuditLog = s.g.auditPath(s.env)
	}
	o, err := openEditSession(ng, s.env)
	if err != nil {
		return nil, err
	}
	// This session's signals stop the operation, between its steps on
	// either cluster.
	signal.Stop(o.sigs)
	o.ed.Interrupt = s.interrupt
	o.ed.Elsewhere = nil
	if s.others == nil {
		s.others = map[string]*editSession{}
	}
	s.others[where] = o
	return o.ed, nil
}

func (s *editSession) closeOthers() {
	s.othersMu.Lock()
	defer s.othersMu.Unlock()
	for _, o := range s.others {
		o.close()
	}
	s.others = nil
}
