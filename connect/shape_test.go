package connect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A 200 answer of the wrong shape is an error at once, naming the call:
// no caller waits for a state that such an answer never carries.
func TestWrongShapeIsAnErrorAtOnce(t *testing.T) {
	bodies := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(bodies[r.URL.Path]))
	}))
	defer srv.Close()
	c := mustNew(t, Config{URL: srv.URL})
	ctx := context.Background()
	tests := []struct {
		name, path, body, want string
		call                   func() error
	}{
		{"status without state", "/connectors/x/status", `{"foo":1}`, "GET /connectors/x/status: answer is not a Kafka Connect connector status", func() error { _, err := c.Status(ctx, "x"); return err }},
		{"status as a list", "/connectors/x/status", `[1]`, "GET /connectors/x/status: answer is not Kafka Connect JSON", func() error { _, err := c.Status(ctx, "x"); return err }},
		{"connectors as numbers", "/connectors", `[1,2,3]`, "answer is not a Kafka Connect connector list", func() error { _, err := c.Connectors(ctx); return err }},
		{"connectors without status", "/connectors", `{"a":{}}`, `entry "a" has no status.connector.state`, func() error { _, err := c.Connectors(ctx); return err }},
		{"server info without version", "/", `{"v":1}`, "GET /: answer is not a Kafka Connect server info", func() error { _, err := c.ServerInfo(ctx); return err }},
		{"offsets without offsets", "/connectors/x/offsets", `{"partitions":[]}`, `answer is not a Kafka Connect offsets body`, func() error { _, err := c.Offsets(ctx, "x"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bodies[tt.path] = tt.body
			start := time.Now()
			err := tt.call()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}
}
