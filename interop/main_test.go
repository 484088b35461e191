package interop

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// stack is the one real broker and worker every test of this package shares;
// nil when skipReason says why not.
var (
	stack      *Stack
	skipReason string
	auditDir   string
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if missing := Missing(); missing != "" {
		if os.Getenv("CI") == "true" {
			fmt.Fprintf(os.Stderr, "interop: %s (CI=true: the real-stack tests must run)\n", missing)
			return 1
		}
		skipReason = "real-stack tests skipped: " + missing
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "koff-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "interop:", err)
		return 1
	}
	auditDir = dir + "/state"
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	start := time.Now()
	s, err := Start(ctx, dir)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "interop: real stack did not start: %v\nlogs kept in %s\n", err, dir)
		if s != nil {
			fmt.Fprint(os.Stderr, s.Logs(60))
		}
		return 1
	}
	stack = s
	fmt.Fprintf(os.Stderr, "interop: Apache Kafka %s broker %s and Connect worker %s up in %s (logs in %s)\n",
		KafkaVersion, s.Bootstrap, s.ConnectURL, time.Since(start).Round(time.Second), dir)
	code := m.Run()
	s.Stop()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "interop: tests failed; broker and worker logs kept in %s\n", dir)
		return code
	}
	os.RemoveAll(dir)
	return code
}

// realStack is the shared stack, or skips the test saying how to enable it.
// A failing test prints the end of both logs.
func realStack(t *testing.T) *Stack {
	t.Helper()
	if stack == nil {
		t.Skip(skipReason)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("\n" + stack.Logs(80))
		}
	})
	return stack
}
