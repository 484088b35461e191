package cli

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"koff/internal/faultproxy"
)

var faultWords = map[faultproxy.RESTFault]string{
	faultproxy.RESTHang:       "timed out",
	faultproxy.REST500:        "Request timed out",
	faultproxy.REST503:        "503 Service Unavailable",
	faultproxy.REST409:        "stale configuration",
	faultproxy.RESTGarbage:    "not Kafka Connect JSON",
	faultproxy.RESTWrongShape: "answer is not",
}

// Connect misbehaving (hanging, 5xx from it or a proxy in front, 409
// during a rebalance, garbage, JSON of the wrong shape) is one clear line
// naming Connect, in bounded time, and never a hang, a panic or raw bytes;
// what Kafka knows is still printed where the command needs no REST data.
func TestRESTFaultsAreOneClearLine(t *testing.T) {
	c := demoCluster(t)
	faults, err := faultproxy.NewREST(c.ConnectURL())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(faults)
	t.Cleanup(srv.Close)
	flags := []string{"-b", c.Bootstrap(), "--connect-url", srv.URL}
	stopped := false
	for _, f := range []faultproxy.RESTFault{faultproxy.RESTHang, faultproxy.REST500, faultproxy.REST503, faultproxy.REST409, faultproxy.RESTGarbage, faultproxy.RESTWrongShape} {
		for _, tc := range []struct {
			method, prefix string
			args           []string
		}{
			{"", "/connectors", []string{"status"}},
			{"", "/connectors", []string{"get", "jdbc-shop"}},
			{"PUT", "/connectors", []string{"stop", "jdbc-shop"}},
			{"PUT", "/connectors", []string{"resume", "jdbc-shop"}},
			{"PATCH", "/connectors", []string{"set", "jdbc-shop", "--yes", "--partition", `{"protocol":"1","table":"shop.public.orders"}`, "--offset", `{"incrementing":7}`}},
			{"GET", "/", []string{"get", "jdbc-shop", "-o", "json"}},
		} {
			if f == faultproxy.RESTHang && tc.args[0] != "stop" {
				continue // each waits out the client's 10 s timeout: one is enough
			}
			if tc.args[0] == "set" && !stopped {
				if _, errs, code := koff(t, append([]string{"stop", "jdbc-shop"}, "-b", c.Bootstrap(), "--connect-url", c.ConnectURL())...); code != 0 {
					t.Fatalf("stop: %s", errs)
				}
				stopped = true
			}
			t.Run(fmt.Sprintf("%s %s %s", f, tc.method, strings.Join(tc.args, " ")), func(t *testing.T) {
				faults.Set(f, tc.method, tc.prefix)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				start := time.Now()
				out, errs, code := koffIn(ctx, withAudit(t, append(tc.args, flags...)...)...)
				took := time.Since(start)
				t.Logf("exit %d after %s, %d faults\nstdout: %.300s\nstderr: %s", code, took.Round(time.Millisecond), faults.Hits(), out, errs)
				if raw := rawControlIn([]byte(out + errs)); raw != "" {
					t.Errorf("raw %q in the output", raw)
				}
				// status that cannot tell a connector's flush (Connect's state
				// is what it lacks) pages with exit 4 and says for which, on a
				// line of its own after the warning.
				paged := tc.args[0] == "status" && code == ExitFlushUnknown && strings.Count(errs, "\n") == 2 && strings.Contains(errs, "flush unknown after 3×")
				if code != 0 && strings.Count(errs, "\n") != 1 && !paged {
					t.Errorf("exit %d with %d lines on stderr", code, strings.Count(errs, "\n"))
				}
				if took > 30*time.Second {
					t.Errorf("took %s", took)
				}
				// get and status print what Kafka knows, warning about
				// Connect; a 200 to PUT stop or resume has no body to check;
				// every other fault fails the command. Each says what Connect did.
				reads := tc.args[0] == "get" || tc.args[0] == "status"
				switch {
				case tc.method == "PUT" && (f == faultproxy.RESTGarbage || f == faultproxy.RESTWrongShape):
				case reads && f != faultproxy.RESTHang:
					if !strings.Contains(errs, "warning") || !strings.Contains(errs, faultWords[f]) || out == "" {
						t.Errorf("exit %d, stdout %d bytes, stderr %q: want Kafka's data and a warning with %q", code, len(out), errs, faultWords[f])
					}
				default:
					if code == 0 {
						t.Errorf("exit 0 despite Connect's %s", f)
					}
					if want := faultWords[f]; !strings.Contains(errs, want) {
						t.Errorf("stderr %q lacks %q", errs, want)
					}
				}
			})
		}
	}
}
