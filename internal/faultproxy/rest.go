package faultproxy

import (
	"bytes"
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
	// RESTLate answers Connect's 500 "Request timed out" at once, as a
	// worker does when the leader it forwarded the request to is slow, and
	// passes the request on to Connect later, when ReleaseLate is called:
	// the leader applies it after the client was told it timed out.
	RESTLate
)

func (f RESTFault) String() string {
	return [...]string{"pass", "hang", "500", "503", "409", "garbage", "wrong shape", "late"}[f]
}

// REST is an http.Handler in front of a Connect REST API (the demo's
// emulator) that answers with faults: timeouts, 5xx, 409 and garbage,
// for requests whose path has a given prefix and method.
type REST struct {
	proxy  *httputil.ReverseProxy
	target *url.URL
	late   []*http.Request // held by RESTLate, with their bodies

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
	return &REST{proxy: httputil.NewSingleHostReverseProxy(u), target: u, hang: time.Minute}, nil
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
	case RESTLate:
		body, _ := io.ReadAll(req.Body)
		held, err := http.NewRequest(req.Method, r.target.JoinPath(req.URL.Path).String(), bytes.NewReader(body))
		if err == nil {
			held.Header = req.Header.Clone()
			r.mu.Lock()
			r.late = append(r.late, held)
			r.mu.Unlock()
		}
		writeJSON(w, http.StatusInternalServerError, `{"error_code":500,"message":"Request timed out"}`)
	}
}

// ReleaseLate sends the requests RESTLate held on to Connect, in order,
// and returns Connect's status codes.
func (r *REST) ReleaseLate() ([]int, error) {
	r.mu.Lock()
	held := r.late
	r.late = nil
	r.mu.Unlock()
	var codes []int
	for _, req := range held {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return codes, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	return codes, nil
}

func writeJSON(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	io.WriteString(w, body)
}
