// Command realstack starts the real Apache Kafka broker and Connect worker
// of the interop tests with a few live connectors, so that anyone can look
// at koff's dashboard on real Connect (interop/dashboard.sh). It writes the
// koff flags to use to -ready, keeps the files growing, and stops the stack
// on SIGINT or SIGTERM.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"koff/interop"
)

func main() {
	ready := flag.String("ready", "", "file to write the koff flags to once the stack runs")
	flag.Parse()
	if err := run(*ready); err != nil {
		fmt.Fprintln(os.Stderr, "realstack:", err)
		os.Exit(1)
	}
}

func run(ready string) error {
	dir, err := os.MkdirTemp("", "koff-realstack-")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	fmt.Fprintf(os.Stderr, "realstack: starting Apache Kafka %s broker and Connect worker (logs in %s)\n", interop.KafkaVersion, dir)
	s, err := interop.Start(start, dir)
	if err != nil {
		return err
	}
	defer s.Stop()

	var files []string
	for i := 1; i <= 3; i++ {
		f := filepath.Join(s.FilesDir, fmt.Sprintf("app-%d.log", i))
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			return err
		}
		files = append(files, f)
		if err := put(s.ConnectURL, fmt.Sprintf("file-app-%d", i), map[string]string{
			"connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
			"file":            f, "topic": "app-logs", "tasks.max": "1",
		}); err != nil {
			return err
		}
	}
	if err := put(s.ConnectURL, "file-sink", map[string]string{
		"connector.class": "org.apache.kafka.connect.file.FileStreamSinkConnector",
		"file":            filepath.Join(s.FilesDir, "sink.out"), "topics": "app-logs", "tasks.max": "1",
	}); err != nil {
		return err
	}
	if err := put(s.ConnectURL, "shapes", map[string]string{
		"connector.class": "koff.interop.ShapesSourceConnector",
		"topic":           "shapes-out", "tasks.max": "1", "poll.ms": "1000", "max.seq": "100000",
	}); err != nil {
		return err
	}
	flags := fmt.Sprintf("-b %s --connect-url %s\n", s.Bootstrap, s.ConnectURL)
	if ready != "" {
		if err := os.WriteFile(ready, []byte(flags), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "realstack: up; run koff %s", flags)

	// The first file grows fast, the second slowly, the third stops after
	// a minute: ok, ok and then idle in koff.
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	began := time.Now()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			fmt.Fprintln(os.Stderr, "realstack: stopping")
			return nil
		case <-tick.C:
		}
		appendLine(files[0], n)
		if n%6 == 0 {
			appendLine(files[1], n)
		}
		if time.Since(began) < time.Minute && n%2 == 0 {
			appendLine(files[2], n)
		}
	}
}

// put creates a connector through Connect's REST API.
func put(url, name string, config map[string]string) error {
	body, _ := json.Marshal(config)
	req, err := http.NewRequest(http.MethodPut, url+"/connectors/"+name+"/config", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return fmt.Errorf("create %s: %s: %s", name, resp.Status, b.String())
	}
	return nil
}

func appendLine(path string, n int) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s line %d at %s\n", filepath.Base(path), n, time.Now().Format(time.RFC3339Nano))
	f.Close()
}
