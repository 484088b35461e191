package cli

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// demo-cluster --second-connect-listen runs a second Connect cluster on the
// same broker, with its own REST emulator and internal topics: a connector
// created there is read by koff from the second cluster's topics, and the
// first cluster's connectors are not.
func TestDemoClusterSecondConnect(t *testing.T) {
	banner := startDemoCluster(t, "--second-connect-listen", "127.0.0.1:0")
	second := strings.Fields(bannerLine(t, banner, "connect 2:"))[0]
	first := strings.Fields(bannerLine(t, banner, "connect:"))[0]
	if second == first || !strings.Contains(banner, "connect-cluster-2-offsets") {
		t.Fatalf("banner:\n%s", banner)
	}
	resp, err := http.Post(second+"/connectors", "application/json", strings.NewReader(
		`{"name":"file-moved","config":{"connector.class":"org.apache.kafka.connect.file.FileStreamSourceConnector","file":"/var/log/app-1.log","topic":"logs.app"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create on the second cluster: %d", resp.StatusCode)
	}
	// The banner's line for the second cluster, as koff get.
	var args []string
	for _, l := range strings.Split(banner, "\n") {
		if strings.Contains(l, "--offsets-topic connect-cluster-2-offsets") {
			args = append([]string{"get"}, strings.Fields(l)[1:]...)
		}
	}
	if args == nil {
		t.Fatalf("no koff line for the second cluster:\n%s", banner)
	}
	var got string
	deadline := time.Now().Add(20 * time.Second)
	for {
		o, e, code := koff(t, args...)
		got = o
		if code == 0 && hasRow(o, "file-moved", `{"filename":"/var/log/app-1.log"}`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("koff %s: exit %d\n%s%s", strings.Join(args, " "), code, o, e)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if strings.Contains(got, "jdbc-shop") || strings.Contains(got, "file-logs") {
		t.Fatalf("the second cluster shows the first's connectors:\n%s", got)
	}
}

// hasRow reports whether a table has a row of the connector holding text,
// however wide its columns are.
func hasRow(table, connector, text string) bool {
	for _, l := range strings.Split(table, "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == connector && strings.Contains(l, text) {
			return true
		}
	}
	return false
}
