package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"koff/model/java"
)

// Java names in Jackson's messages about a create request.
const (
	javaCreate       = "org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest"
	javaInitialState = javaCreate + "$InitialState"
	javaStringMap    = "java.util.Map<java.lang.String,java.lang.String>"
)

// createRequest is Connect's CreateConnectorRequest: a name, a config
// (nil when missing or null) and KIP-980's initial_state ("" when absent:
// RUNNING).
type createRequest struct {
	name   string
	config map[string]*string // a JSON null value stays nil, as Jackson reads it
	order  []string           // config keys as sent (LinkedHashMap)
	state  string
}

// createConnector is POST /connectors: 201 with the connector's info, 409
// when the name is taken, and Connect's 400s and 500s for what its
// resource and herder refuse.
func (s *Server) createConnector(w http.ResponseWriter, r *http.Request, _ string) *restError {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return errorf(http.StatusBadRequest, "%v", err)
	}
	req, e := decodeCreate(body, !s.atLeast(3, 7))
	if e != nil {
		return e
	}
	// ConnectorsResource.createConnector trims the name.
	name := strings.TrimSpace(req.name)
	return s.putConfig(w, name, req.config, req.order, req.state, false)
}

// putConnectorConfig is PUT /connectors/NAME/config: a new connector
// (201, RUNNING) or a new config for an existing one (200; its tasks
// restart with it).
func (s *Server) putConnectorConfig(w http.ResponseWriter, r *http.Request, name string) *restError {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return errorf(http.StatusBadRequest, "%v", err)
	}
	d := &bodyDecoder{body: body, dec: json.NewDecoder(bytes.NewReader(body))}
	d.dec.UseNumber()
	cfg, order, isNull, e := d.configMap("")
	if e != nil {
		return e
	}
	if isNull {
		cfg = nil
	}
	return s.putConfig(w, name, cfg, order, "", true)
}

// putConfig is the herder's putConnectorConfig behind both: the name
// check of checkAndPutConnectorConfigName, then the config's validation.
func (s *Server) putConfig(w http.ResponseWriter, name string, raw map[string]*string, order []string, state string, allowReplace bool) *restError {
	if raw == nil {
		return errorf(http.StatusInternalServerError, `Cannot invoke "java.util.Map.get(Object)" because "connectorConfig" is null`)
	}
	if included, ok := raw["name"]; ok && included != nil {
		if *included != name {
			return errorf(http.StatusBadRequest, "Connector name configuration (%s) doesn't match connector name in the URL (%s)", *included, name)
		}
	} else if !ok {
		v := name
		raw["name"] = &v
		order = append(order, "name")
	}
	config := map[string]string{}
	for k, v := range raw {
		if v != nil {
			config[k] = *v
		}
	}
	if strings.TrimSpace(config["connector.class"]) == "" {
		return errorf(http.StatusBadRequest, "Connector config %s contains no connector type", javaMapText(raw, order))
	}
	if name == "" {
		return errorf(http.StatusBadRequest, "Connector configuration is invalid and contains the following 1 error(s):\n"+
			"Invalid value  for configuration name: String may not be empty\n"+
			"You can also find the above list of errors at the endpoint `/connector-plugins/{connectorType}/config/validate`")
	}
	if state == "" {
		state = stateRunning
	}
	created := true
	if _, exists := s.h.Connector(name); exists {
		if !allowReplace {
			return errorf(http.StatusConflict, "Connector %s already exists", name)
		}
		created = false
	}
	var err error
	if created {
		err = s.h.CreateConnector(config, state)
	} else {
		err = s.h.UpdateConnector(config)
	}
	var ce *ConfigError
	switch {
	case errors.As(err, &ce):
		return errorf(http.StatusBadRequest, "%s", ce.Message)
	case errors.Is(err, ErrExists):
		return errorf(http.StatusConflict, "Connector %s already exists", name)
	case err != nil:
		return errorf(http.StatusInternalServerError, "%v", err)
	}
	conn, ok := s.h.Connector(name)
	if !ok {
		return errorf(http.StatusNotFound, "Connector %s not found", name)
	}
	info := s.info(conn)
	status := http.StatusOK
	if created {
		// The answer is written before the herder assigns tasks: none yet.
		info.Tasks = []taskID{}
		status = http.StatusCreated
		w.Header().Set("Location", "/connectors/"+url.PathEscape(name))
	}
	writeJSON(w, status, info)
	return nil
}

// deleteConnector is DELETE /connectors/NAME: 204; the connector's
// offsets stay where they are.
func (s *Server) deleteConnector(w http.ResponseWriter, _ *http.Request, name string) *restError {
	if _, ok := s.h.Connector(name); !ok {
		return errorf(http.StatusNotFound, "Connector %s not found", name)
	}
	if err := s.h.DeleteConnector(name); err != nil {
		return errorf(http.StatusInternalServerError, "%v", err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// ConfigError is a connector config the herder refuses: Connect answers
// 400 with its message.
type ConfigError struct{ Message string }

func (e *ConfigError) Error() string { return e.Message }

// ErrExists is a create whose name another request took first (409).
var ErrExists = errors.New("connector exists")

// decodeCreate reads a POST /connectors body as Jackson maps it onto
// CreateConnectorRequest, reporting the first problem in document order.
// Before Connect 3.7 (KIP-980) it has no initial_state.
func decodeCreate(body []byte, before37 bool) (createRequest, *restError) {
	d := &bodyDecoder{body: body, dec: json.NewDecoder(bytes.NewReader(body)), before37: before37}
	d.dec.UseNumber()
	var req createRequest
	at := d.tokenStart()
	tok, err := d.dec.Token()
	if err == io.EOF || err == nil && tok == nil {
		return req, errorf(http.StatusInternalServerError,
			`Cannot invoke "%s.name()" because "createRequest" is null`, javaCreate)
	}
	if err != nil {
		return req, d.syntax(err)
	}
	switch tok {
	case json.Delim('{'):
	case json.Delim('['):
		return req, d.mismatch(javaCreate, tok, at, "")
	default:
		return req, d.noCreator(javaCreate, tok, at, "")
	}
	// A creator-built bean buffers a property it does not know and
	// refuses it once the object ended, located there.
	unknown := ""
	for {
		name, _, done, e := d.field()
		if e != nil {
			return req, e
		}
		if done {
			if unknown != "" {
				known := `3 known properties: "config", "name", "initial_state"`
				if d.before37 {
					known = `2 known properties: "config", "name"`
				}
				return req, d.unknown(javaCreate, unknown, known, int(d.dec.InputOffset()), javaCreate+`["`+unknown+`"]`)
			}
			return req, nil
		}
		chain := javaCreate + `["` + name + `"]`
		switch name {
		case "name":
			var s *string
			if s, e = d.stringValue("java.lang.String", chain); s != nil {
				req.name = *s
			}
		case "config":
			req.config, req.order, _, e = d.configMap(chain)
		case "initial_state":
			if !d.before37 {
				req.state, e = d.initialState(chain)
				break
			}
			fallthrough
		default:
			var skip json.RawMessage
			if err := d.dec.Decode(&skip); err != nil {
				return req, d.syntax(err)
			}
			if unknown == "" {
				unknown = name
			}
		}
		if e != nil {
			return req, e
		}
	}
}

// stringValue reads a String: null, a string, or a scalar Jackson coerces
// to its text; an object or array is a mismatch.
func (d *bodyDecoder) stringValue(typ, chain string) (*string, *restError) {
	at := d.tokenStart()
	tok, err := d.dec.Token()
	if err != nil {
		return nil, d.syntax(err)
	}
	switch t := tok.(type) {
	case nil:
		return nil, nil
	case string:
		return &t, nil
	case json.Number:
		s := string(t)
		return &s, nil
	case bool:
		s := fmt.Sprint(t)
		return &s, nil
	}
	return nil, d.mismatch(typ, tok, at, chain)
}

// configMap reads a Map<String,String>: null (isNull) or an object of
// scalars, in the order sent.
func (d *bodyDecoder) configMap(chain string) (m map[string]*string, order []string, isNull bool, e *restError) {
	at := d.tokenStart()
	tok, err := d.dec.Token()
	if err == io.EOF && chain == "" {
		return nil, nil, true, nil
	}
	if err != nil {
		return nil, nil, false, d.syntax(err)
	}
	switch tok {
	case nil:
		return nil, nil, true, nil
	case json.Delim('{'):
	case json.Delim('['):
		return nil, nil, false, d.mismatch(javaStringMap, tok, at, chain)
	default:
		if s, ok := tok.(string); ok {
			return nil, nil, false, d.noCreator("java.util.LinkedHashMap", s, at, chain)
		}
		return nil, nil, false, d.mismatch(javaStringMap, tok, at, chain)
	}
	m = map[string]*string{}
	for {
		key, _, done, e := d.field()
		if e != nil {
			return nil, nil, false, e
		}
		if done {
			return m, order, false, nil
		}
		v, e := d.stringValue("java.lang.String", chain+"->java.util.LinkedHashMap[\""+key+"\"]")
		if e != nil {
			return nil, nil, false, e
		}
		if _, seen := m[key]; !seen {
			order = append(order, key)
		}
		m[key] = v
	}
}

// initialState reads KIP-980's initial_state: null, or RUNNING, PAUSED or
// STOPPED in any case (InitialState.forValue upper-cases it).
func (d *bodyDecoder) initialState(chain string) (string, *restError) {
	at := d.tokenStart()
	s, e := d.stringValue(javaInitialState, chain)
	if e != nil || s == nil {
		return "", e
	}
	state := strings.ToUpper(*s)
	switch state {
	case stateRunning, statePaused, stateStopped:
		return state, nil
	}
	return "", errorf(http.StatusInternalServerError,
		"Cannot construct instance of `%s`, problem: No enum constant %s.%s%s%s",
		javaInitialState, strings.ReplaceAll(javaInitialState, "$", "."), state, d.location(at), chainSuffix(chain))
}

// javaMapText is a config map as Java's HashMap.toString writes it, in
// HashMap order: {k1=v1, k2=v2}.
func javaMapText(m map[string]*string, order []string) string {
	obj := make(java.Object, 0, len(order))
	for _, k := range order {
		var v any
		if m[k] != nil {
			v = *m[k]
		}
		obj = append(obj, java.Field{Name: k, Value: v})
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range java.HashMapOrder(obj) {
		if i > 0 {
			b.WriteString(", ")
		}
		v := "null"
		if s, ok := f.Value.(string); ok {
			v = s
		}
		b.WriteString(f.Name + "=" + v)
	}
	b.WriteByte('}')
	return b.String()
}
