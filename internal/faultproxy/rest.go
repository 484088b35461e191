package faultproxy

import (
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// RESTFault is what the REST fault handler answers instead of Connect.
type RESTFault int

const (
	// RESTPass forwards every request to Connect.
	RESTPass RESTFault = iota
	// RESTHang answers nothing until the client gives up (or Hang passes).
	RESTHang
	// REST500 is Connect's own 500, as a worker answers when a request to
	// the leader times out.
	REST500
	// REST503 is a proxy's HTML error page in front of a worker.
	REST503
	// REST409 is Connect's rebalance conflict.
	REST409
	// RESTGarbage is a 200 whose body is not JSON.
	RESTGarbage
	// RESTWrongShape is a 200 whose body is JSON of the wrong shape.
	RESTWrongShape
)

func (f RESTFault) String() string {
	return [...]string{"pass", "hang", "500", "503", "409", "garbage", "wrong shape"}[f]
}

// REST is an http.Handler in front of a Connect REST API (the demo's
// emulator) that answers with faults: timeouts, 5xx, 409 and garbage,
// for requests whose path has a given prefix and method.
type REST struct {
	proxy *httputil.ReverseProxy

	mu     sync.Mutex
	fault  RESTFault
	method string // "" for any
	prefix string
	hang   time.Duration
	hits   int
}

// NewREST forwards to target ("http://127.0.0.1:8083").
func NewREST(target string) (*REST, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	return &REST{proxy: httputil.NewSingleHostReverseProxy(u), hang: time.Minute}, nil
}

// Set makes requests with method ("" for any) and a path beginning with
// prefix answer with f.
func (r *REST) Set(f RESTFault, method, prefix string) {
	r.mu.Lock()
	r.fault, r.method, r.prefix, r.hits = f, method, prefix, 0
	r.mu.Unlock()
}

// Hits is how many requests got the fault since Set.
func (r *REST) Hits() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits
}

func (r *REST) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	f := r.fault
	if f != RESTPass && ((r.method != "" && req.Method != r.method) || !strings.HasPrefix(req.URL.Path, r.prefix)) {
		f = RESTPass
	}
	if f != RESTPass {
		r.hits++
	}
	hang := r.hang
	r.mu.Unlock()
	switch f {
	case RESTPass:
		r.proxy.ServeHTTP(w, req)
	case RESTHang:
		io.Copy(io.Discard, req.Body)
		select {
		case <-req.Context().Done():
		case <-time.After(hang):
		}
	case REST500:
		writeJSON(w, http.StatusInternalServerError, `{"error_code":500,"message":"Request timed out"}`)
	case REST503:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>\n")
	case REST409:
		writeJSON(w, http.StatusConflict, `{"error_code":409,"message":"Cannot complete request momentarily due to stale configuration (typically caused by a concurrent config change)"}`)
	case RESTGarbage:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "\x00\xff\x1b[2J<garbage>{\"connectors\"")
	case RESTWrongShape:
		writeJSON(w, http.StatusOK, `[1,"two",{"three":3}]`)
	}
}

func writeJSON(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	io.WriteString(w, body)
}
