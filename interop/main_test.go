package interop

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"koff/internal/testhome"
)

// stack is the one real broker and worker every test of this package shares,
// started by the first test that needs it; skipReason says why there is none.
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
		defer stopDatabases()
		return testhome.Main(m)
	}
	code := testhome.Main(m)
	stopDatabases()
	sourceCluster.Stop()
	if stack == nil {
		return code
	}
	stack.Stop()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "interop: tests failed; broker and worker logs kept in %s\n", stack.Dir)
		return code
	}
	os.RemoveAll(stack.Dir)
	return code
}

// stopDatabases stops the PostgreSQL and MariaDB servers the tests started.
func stopDatabases() {
	if pgServer != nil {
		pgServer.Stop()
	}
	if mariaServer != nil {
		mariaServer.Stop()
	}
}

var (
	startOnce sync.Once
	startErr  error
)

// startStack starts the shared stack the first time a test needs it, so
// that tests needing no JVM run without one.
func startStack() error {
	startOnce.Do(func() {
		dir, err := os.MkdirTemp("", "koff-interop-")
		if err != nil {
			startErr = err
			return
		}
		auditDir = dir + "/state"
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		began := time.Now()
		s, err := Start(ctx, dir)
		if err != nil {
			startErr = fmt.Errorf("real stack did not start: %v (logs kept in %s)", err, dir)
			if s != nil {
				fmt.Fprint(os.Stderr, s.Logs(60))
			}
			return
		}
		stack = s
		fmt.Fprintf(os.Stderr, "interop: Apache Kafka %s broker %s and Connect worker %s up in %s (logs in %s)\n",
			KafkaVersion, s.Bootstrap, s.ConnectURL, time.Since(began).Round(time.Second), dir)
	})
	return startErr
}

// realStack is the shared stack, or skips the test saying how to enable it.
// A failing test prints the end of both logs.
func realStack(t *testing.T) *Stack {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	if err := startStack(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("\n" + stack.Logs(80))
		}
	})
	return stack
}

// The second broker, MirrorMaker 2's source cluster, started by the first
// test that needs it.
var (
	sourceOnce    sync.Once
	sourceCluster *SourceCluster
	sourceErr     error
)

// realSourceCluster is the shared stack and the second broker beside it,
// or skips as realStack does.
func realSourceCluster(t *testing.T) (*Stack, *SourceCluster) {
	t.Helper()
	s := realStack(t)
	sourceOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		began := time.Now()
		sourceCluster, sourceErr = s.StartSourceCluster(ctx)
		if sourceErr == nil {
			fmt.Fprintf(os.Stderr, "interop: source cluster broker %s up in %s\n", sourceCluster.Bootstrap, time.Since(began).Round(time.Second))
		}
	})
	if sourceErr != nil {
		t.Fatal(sourceErr)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Log("\n==== source cluster broker\n" + sourceCluster.Log(60))
		}
	})
	return s, sourceCluster
}
