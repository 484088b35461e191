package cli

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"koff/demo"
)

// koff status shows the records written since a connector's last flush as
// a lower bound of what a crash would replay: "≥N", never a bare count
// above zero (the worker commits only offsets of acknowledged records).
func TestStatusShowsUnflushedRecordsAsALowerBound(t *testing.T) {
	c, err := demo.Start(context.Background(), demo.Options{FlushInterval: 2 * time.Second, ConnectListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cell := regexp.MustCompile(`^(-|0|≥[0-9]+)$`)
	var out string
	waitFor(t, "a connector with unflushed records", func() bool {
		out, _, _ = koff(t, "status", "-b", c.Bootstrap(), "--connect-url", c.ConnectURL())
		lines := strings.Split(out, "\n")
		if len(lines) == 0 || !strings.HasPrefix(lines[0], "SOURCE") {
			return false
		}
		col := strings.Index(lines[0], "UNFLUSHED")
		seen := false
		for _, l := range lines[1:] {
			if l == "" {
				break
			}
			v := strings.Fields(string([]rune(l)[col:]))[0]
			if !cell.MatchString(v) {
				t.Fatalf("UNFLUSHED %q is not a lower bound:\n%s", v, out)
			}
			seen = seen || strings.HasPrefix(v, "≥")
		}
		return seen
	})
}
