package connect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// An offsets PATCH or DELETE is waited for as long as Connect itself
// takes to give up on a request (its REST request timeout), not the
// client's timeout for reads: altering an exactly-once connector's offsets
// fences its producers first, and a client that gives up early leaves an
// edit the worker may still apply.
func TestOffsetsWritesOutwaitTheReadTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond) // longer than the client's read timeout below
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet {
			w.Write([]byte(`{"offsets":[]}`))
			return
		}
		w.Write([]byte(`{"message":"The offsets for this connector have been altered successfully"}`))
	}))
	defer srv.Close()
	c, err := New(Config{URL: srv.URL, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.AlterOffsets(ctx, "src", []byte(`{"offsets":[{"partition":{"f":"x"},"offset":{"p":1}}]}`)); err != nil {
		t.Errorf("PATCH answered after the read timeout: %v", err)
	}
	if _, err := c.ResetOffsets(ctx, "src"); err != nil {
		t.Errorf("DELETE answered after the read timeout: %v", err)
	}
	if _, err := c.Offsets(ctx, "src"); err == nil || !strings.Contains(err.Error(), "timed out after 100ms") {
		t.Errorf("a GET slower than the read timeout: %v, want timed out after 100ms", err)
	}
}
