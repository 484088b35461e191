package rest

import (
	"net/http"
)

// JSON shapes of Connect's REST entities (…/runtime/rest/entities).
type (
	// Version is the plugin's version() (Connect 4.1+, KIP-891; Jackson
	// leaves it out when unknown: ConnectorStateInfo.AbstractState).
	stateInfo struct {
		State    string `json:"state"`
		WorkerID string `json:"worker_id"`
		Version  string `json:"version,omitempty"`
	}
	taskState struct {
		ID       int    `json:"id"`
		State    string `json:"state"`
		WorkerID string `json:"worker_id"`
		Version  string `json:"version,omitempty"`
		Trace    string `json:"trace,omitempty"`
	}
	connectorStateInfo struct {
		Name      string      `json:"name"`
		Connector stateInfo   `json:"connector"`
		Tasks     []taskState `json:"tasks"`
		Type      string      `json:"type"`
	}
	taskID struct {
		Connector string `json:"connector"`
		Task      int    `json:"task"`
	}
	connectorInfo struct {
		Name   string            `json:"name"`
		Config map[string]string `json:"config"`
		Tasks  []taskID          `json:"tasks"`
		Type   string            `json:"type"`
	}
)

// Target states of Connector.State.
const (
	stateRunning = "RUNNING"
	statePaused  = "PAUSED"
	stateStopped = "STOPPED"
)

// taskCount is how many tasks a connector has now: none when stopped,
// since stopping writes an empty task-config list.
func taskCount(conn Connector, state string) int {
	if state == stateStopped {
		return 0
	}
	return conn.Tasks()
}

func (s *Server) status(conn Connector) connectorStateInfo {
	state, shown := conn.State(), conn.ReportedState()
	version := ""
	if s.atLeast(4, 1) {
		version = conn.PluginVersion(s.connectVersion)
	}
	info := connectorStateInfo{
		Name:      conn.Name(),
		Connector: stateInfo{shown, s.workerID, version},
		Tasks:     []taskState{},
		Type:      conn.Type(),
	}
	for i := range taskCount(conn, state) {
		ts := taskState{ID: i, State: state, WorkerID: s.workerID, Version: version}
		if state == stateRunning && conn.TaskFailed(i) {
			ts.State, ts.Trace = "FAILED", "org.apache.kafka.connect.errors.ConnectException: demo: task failed (FailTask)"
		}
		info.Tasks = append(info.Tasks, ts)
	}
	return info
}

func (s *Server) info(conn Connector) connectorInfo {
	info := connectorInfo{
		Name:   conn.Name(),
		Config: conn.Config(),
		Tasks:  []taskID{},
		Type:   conn.Type(),
	}
	for i := range taskCount(conn, conn.State()) {
		info.Tasks = append(info.Tasks, taskID{conn.Name(), i})
	}
	return info
}

// listConnectors is GET /connectors: the names, or with ?expand=status
// and/or ?expand=info (repeated parameters; unknown ones are ignored, each
// connector then maps to {}) an object keyed by name.
func (s *Server) listConnectors(w http.ResponseWriter, r *http.Request, _ string) *restError {
	expand, ok := r.URL.Query()["expand"]
	if !ok {
		writeJSON(w, http.StatusOK, s.h.Connectors())
		return nil
	}
	out := map[string]map[string]any{}
	for _, name := range s.h.Connectors() {
		conn, _ := s.h.Connector(name)
		m := map[string]any{}
		for _, e := range expand {
			switch e {
			case "status":
				m["status"] = s.status(conn)
			case "info":
				m["info"] = s.info(conn)
			}
		}
		out[name] = m
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// connectorInfo is GET /connectors/NAME.
func (s *Server) connectorInfo(w http.ResponseWriter, _ *http.Request, name string) *restError {
	conn, ok := s.h.Connector(name)
	if !ok {
		return errorf(http.StatusNotFound, "Connector %s not found", name)
	}
	writeJSON(w, http.StatusOK, s.info(conn))
	return nil
}

// connectorStatus is GET /connectors/NAME/status.
func (s *Server) connectorStatus(w http.ResponseWriter, _ *http.Request, name string) *restError {
	conn, ok := s.h.Connector(name)
	if !ok {
		return errorf(http.StatusNotFound, "No status found for connector %s", name)
	}
	writeJSON(w, http.StatusOK, s.status(conn))
	return nil
}

// connectorConfig is GET /connectors/NAME/config.
func (s *Server) connectorConfig(w http.ResponseWriter, _ *http.Request, name string) *restError {
	conn, ok := s.h.Connector(name)
	if !ok {
		return errorf(http.StatusNotFound, "Connector %s not found", name)
	}
	writeJSON(w, http.StatusOK, conn.Config())
	return nil
}

// connectorTopics is GET /connectors/NAME/topics: the topics the
// connector's tasks have produced to (a source) or consumed from (a sink).
// Like Connect it does not check that the connector exists: an unknown one
// simply has no topics.
func (s *Server) connectorTopics(w http.ResponseWriter, r *http.Request, name string) *restError {
	topics := []string{}
	if conn, ok := s.h.Connector(name); ok {
		active, err := conn.ActiveTopics(r.Context())
		if err != nil {
			return errorf(http.StatusInternalServerError, "%v", err)
		}
		topics = append(topics, active...)
	}
	writeJSON(w, http.StatusOK, map[string]any{name: map[string][]string{"topics": topics}})
	return nil
}

// stopConnector is PUT /connectors/NAME/stop: 204 once the tasks have
// stopped, so that offsets can be altered right away.
func (s *Server) stopConnector(w http.ResponseWriter, _ *http.Request, name string) *restError {
	if e := s.lifecycle(s.h.StopConnector, name); e != nil {
		return e
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// pause is PUT /connectors/NAME/pause: 202.
func (s *Server) pause(w http.ResponseWriter, _ *http.Request, name string) *restError {
	if e := s.lifecycle(s.h.PauseConnector, name); e != nil {
		return e
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// resume is PUT /connectors/NAME/resume: 202.
func (s *Server) resume(w http.ResponseWriter, _ *http.Request, name string) *restError {
	if e := s.lifecycle(s.h.ResumeConnector, name); e != nil {
		return e
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// lifecycle runs a stop, pause or resume of a known connector.
func (s *Server) lifecycle(do func(name string) error, name string) *restError {
	if _, ok := s.h.Connector(name); !ok {
		return errorf(http.StatusNotFound, "Unknown connector %s", name)
	}
	if err := do(name); err != nil {
		return errorf(http.StatusInternalServerError, "%v", err)
	}
	return nil
}
