package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ParseConnectorConfig reads a connector's config as Connect's POST
// /connectors takes it, {"name":…,"config":{…}}, or as PUT …/config and
// GET …/config have it, a flat map with "name". Values are strings;
// numbers and booleans are taken as their text, as Jackson reads them
// into Connect's Map<String,String>.
func ParseConnectorConfig(data []byte) (string, map[string]string, error) {
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return "", nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if st, ok := top["initial_state"]; ok {
		return "", nil, fmt.Errorf("initial_state %s: koff create makes the connector STOPPED and starts it after its offsets are verified (--start running|stopped)", st)
	}
	name := ""
	body := top
	if raw, ok := top["config"]; ok {
		if err := json.Unmarshal(top["name"], &name); top["name"] != nil && err != nil {
			return "", nil, errors.New(`"name" is not a string`)
		}
		body = nil
		if err := json.Unmarshal(raw, &body); err != nil || body == nil {
			return "", nil, errors.New(`"config" is not an object of settings`)
		}
		for k := range top {
			if k != "name" && k != "config" {
				return "", nil, fmt.Errorf("%q: Connect's create request has name, config and initial_state only", k)
			}
		}
	}
	config := map[string]string{}
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var v any
		d := json.NewDecoder(bytes.NewReader(body[k]))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return "", nil, err
		}
		switch v := v.(type) {
		case string:
			config[k] = v
		case json.Number:
			config[k] = string(v)
		case bool:
			config[k] = fmt.Sprint(v)
		case nil:
		default:
			return "", nil, fmt.Errorf("config %q is not a string, number or boolean: Connect's configs are flat strings", k)
		}
	}
	if n, ok := config["name"]; ok {
		if name != "" && n != name {
			return "", nil, fmt.Errorf("the config's name %q is not the request's %q (Connect refuses that: 400)", n, name)
		}
		name = n
	}
	name = strings.TrimSpace(name) // as ConnectorsResource does
	if name == "" {
		return "", nil, errors.New(`no connector name: give "name"`)
	}
	if strings.TrimSpace(config["connector.class"]) == "" {
		return "", nil, errors.New(`no "connector.class"`)
	}
	config["name"] = name
	return name, config, nil
}
