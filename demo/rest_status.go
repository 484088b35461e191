package demo

import (
	"errors"
	"net/http"
	"sort"
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

// taskCount is how many tasks a connector has now: none when stopped,
// since stopping writes an empty task-config list.
func taskCount(conn *connector, state string) int {
	if state == stateStopped {
		return 0
	}
	return conn.spec.taskCount()
}

func (s *restServer) status(conn *connector) connectorStateInfo {
	state, shown := s.c.ConnectorState(conn.spec.name), s.c.reportedState(conn.spec.name)
	version := ""
	if s.atLeast(4, 1) {
		version = pluginVersion(conn.spec.class, s.version)
	}
	info := connectorStateInfo{
		Name:      conn.spec.name,
		Connector: stateInfo{shown, s.workerID, version},
		Tasks:     []taskState{},
		Type:      conn.spec.kind(),
	}
	for i := range taskCount(conn, state) {
		ts := taskState{ID: i, State: state, WorkerID: s.workerID, Version: version}
		if state == stateRunning && s.c.taskFailed(conn.spec.name, i) {
			ts.State, ts.Trace = "FAILED", "org.apache.kafka.connect.errors.ConnectException: demo: task failed (FailTask)"
		}
		info.Tasks = append(info.Tasks, ts)
	}
	return info
}

// pluginVersion is what the connector class's version() answers: Kafka's
// own connectors say the worker's Kafka version (AppInfoParser), the others
// their release.
func pluginVersion(class, kafkaVersion string) string {
	switch class {
	case "io.confluent.connect.jdbc.JdbcSourceConnector":
		return "10.8.4"
	case "io.debezium.connector.postgresql.PostgresConnector":
		return "3.2.4.Final"
	case classElasticsearch:
		return "15.0.1"
	case classS3:
		return "10.6.7"
	}
	return kafkaVersion
}

func (s *restServer) info(conn *connector) connectorInfo {
	info := connectorInfo{
		Name:   conn.spec.name,
		Config: connectConfig(conn.spec, s.c.Bootstrap()),
		Tasks:  []taskID{},
		Type:   conn.spec.kind(),
	}
	for i := range taskCount(conn, s.c.ConnectorState(conn.spec.name)) {
		info.Tasks = append(info.Tasks, taskID{conn.spec.name, i})
	}
	return info
}

// listConnectors is GET /connectors: the names, or with ?expand=status
// and/or ?expand=info (repeated parameters; unknown ones are ignored, each
// connector then maps to {}) an object keyed by name.
func (s *restServer) listConnectors(w http.ResponseWriter, r *http.Request, _ string) *restError {
	expand, ok := r.URL.Query()["expand"]
	if !ok {
		writeJSON(w, http.StatusOK, s.c.Connectors())
		return nil
	}
	out := map[string]map[string]any{}
	for _, name := range s.c.Connectors() {
		conn := s.c.connectors[name]
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
func (s *restServer) connectorInfo(w http.ResponseWriter, _ *http.Request, name string) *restError {
	conn, ok := s.c.connectors[name]
	if !ok {
		return errorf(http.StatusNotFound, "Connector %s not found", name)
	}
	writeJSON(w, http.StatusOK, s.info(conn))
	return nil
}

// connectorStatus is GET /connectors/NAME/status.
func (s *restServer) connectorStatus(w http.ResponseWriter, _ *http.Request, name string) *restError {
	conn, ok := s.c.connectors[name]
	if !ok {
		return errorf(http.StatusNotFound, "No status found for connector %s", name)
	}
	writeJSON(w, http.StatusOK, s.status(conn))
	return nil
}

// connectorConfig is GET /connectors/NAME/config.
func (s *restServer) connectorConfig(w http.ResponseWriter, _ *http.Request, name string) *restError {
	conn, ok := s.c.connectors[name]
	if !ok {
		return errorf(http.StatusNotFound, "Connector %s not found", name)
	}
	writeJSON(w, http.StatusOK, connectConfig(conn.spec, s.c.Bootstrap()))
	return nil
}

// connectorTopics is GET /connectors/NAME/topics: the topics the
// connector's tasks have produced to (a source) or consumed from (a sink).
// Like Connect it does not check that the connector exists: an unknown one
// simply has no topics.
func (s *restServer) connectorTopics(w http.ResponseWriter, r *http.Request, name string) *restError {
	topics := []string{}
	if conn, ok := s.c.connectors[name]; ok && conn.spec.sink != nil {
		topics = append(topics, conn.consumedTopics()...)
	} else if ok {
		produced, err := s.c.w.producedTo(r.Context(), conn.spec.topics)
		if err != nil {
			return errorf(http.StatusInternalServerError, "%v", err)
		}
		topics = append(topics, produced...)
		sort.Strings(topics)
	}
	writeJSON(w, http.StatusOK, map[string]any{name: map[string][]string{"topics": topics}})
	return nil
}

// stopConnector is PUT /connectors/NAME/stop: 204 once the tasks have
// stopped, so that offsets can be altered right away.
func (s *restServer) stopConnector(w http.ResponseWriter, _ *http.Request, name string) *restError {
	if e := lifecycle(s.c.StopConnector(name), name); e != nil {
		return e
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// pause is PUT /connectors/NAME/pause: 202.
func (s *restServer) pause(w http.ResponseWriter, _ *http.Request, name string) *restError {
	if e := lifecycle(s.c.PauseConnector(name), name); e != nil {
		return e
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// resume is PUT /connectors/NAME/resume: 202.
func (s *restServer) resume(w http.ResponseWriter, _ *http.Request, name string) *restError {
	if e := lifecycle(s.c.ResumeConnector(name), name); e != nil {
		return e
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

func lifecycle(err error, name string) *restError {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrUnknownConnector):
		return errorf(http.StatusNotFound, "Unknown connector %s", name)
	}
	return errorf(http.StatusInternalServerError, "%v", err)
}
