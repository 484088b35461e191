// Package rest is the demo's Connect REST emulator: the part of Connect's
// REST API koff uses (connectors, their creation with KIP-980's
// initial_state and deletion, status, config, topics, pause, resume,
// stop, KIP-875 offsets, the workers' connector plugins), with Connect's status codes, messages and JSON
// shapes, recorded from the real worker (testdata/connect-rest). It serves
// whatever cluster stands behind a Herder; the demo cluster is one.
package rest

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DefaultConnectVersion is the Connect version the REST emulator reports
// when Options.ConnectVersion is empty.
const DefaultConnectVersion = "4.1.1"

// ConnectCommit is what AppInfoParser.getCommitId() says in Kafka 4.1.1
// (GET / of the real worker, testdata/connect-rest/01-server-info.body).
const ConnectCommit = "be816b82d25370ce"

// maxBody bounds a request body; Connect has no limit of its own, but a
// demo needs none bigger than this.
const maxBody = 16 << 20

// Server is the Connect REST emulator: the subset of Connect's REST API
// koff uses, with Connect's status codes, messages and JSON shapes.
type Server struct {
	h              Herder
	ln             net.Listener
	srv            *http.Server
	url            string
	workerID       string // host:port, as a worker advertises itself
	connectVersion string
	major          int // of version; 0 when it does not parse (then: newest)
	minor          int
	clusterID      string

	stop   context.CancelFunc // cancels requests in flight on close
	served chan struct{}
	once   sync.Once
}

// restError is an error response: {"error_code":N,"message":"..."}.
type restError struct {
	Code    int    `json:"error_code"`
	Message string `json:"message"`
}

func errorf(code int, format string, args ...any) *restError {
	return &restError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Jersey's own errors (no resource matched, wrong method, wrong media
// type) go through Connect's ConnectExceptionMapper, which keeps the
// WebApplicationException's status and message.
var (
	errNoResource = &restError{http.StatusNotFound, "HTTP 404 Not Found"}
	errNoMethod   = &restError{http.StatusMethodNotAllowed, "HTTP 405 Method Not Allowed"}
	errMediaType  = &restError{http.StatusUnsupportedMediaType, "HTTP 415 Unsupported Media Type"}
)

// Start listens on addr and serves the emulator until close.
func Start(h Herder, addr, version string, sec Security) (*Server, error) {
	if version == "" {
		version = DefaultConnectVersion
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, err := clusterID(ctx, h.Client())
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connect REST: %w", err)
	}
	s := &Server{h: h, ln: ln, connectVersion: version, clusterID: id, served: make(chan struct{})}
	s.major, s.minor = parseVersion(version)
	s.workerID = advertised(ln.Addr().(*net.TCPAddr))
	s.url = "http://" + s.workerID
	if sec.TLS != nil {
		ln = tls.NewListener(ln, sec.TLS)
		s.url = "https://" + s.workerID
	}
	base, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.srv = &http.Server{
		Handler:           sec.authorize(http.HandlerFunc(s.serveHTTP)),
		ErrorLog:          serverLog(h.Logf), // TLS handshake failures, not to stderr
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	go func() {
		defer close(s.served)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			h.Logf("connect REST: %v", err)
		}
	}()
	return s, nil
}

// URL is the emulator's base URL, "http://127.0.0.1:PORT" (https with TLS).
func (s *Server) URL() string { return s.url }

// Version is the Connect version the emulator reports.
func (s *Server) Version() string { return s.connectVersion }

// Close stops accepting, cancels requests in flight and waits for them.
func (s *Server) Close() {
	s.once.Do(func() {
		s.stop()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil {
			s.srv.Close()
		}
		<-s.served
	})
}

// advertised is the host:port a client can reach: a wildcard listen
// address is reached on loopback.
func advertised(a *net.TCPAddr) string {
	host := a.IP.String()
	if a.IP == nil || a.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(a.Port))
}

// clusterID asks the broker for its cluster id, which Connect reports as
// kafka_cluster_id.
func clusterID(ctx context.Context, cl *kgo.Client) (string, error) {
	resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
	if err != nil {
		return "", fmt.Errorf("connect REST: read cluster id: %w", err)
	}
	if resp.ClusterID == nil {
		return "", nil
	}
	return *resp.ClusterID, nil
}

// parseVersion reads "3.9.0" (or "3.6.1-ce") as 3, 9; 0, 0 when it does
// not parse, which the emulator treats as the newest version.
func parseVersion(v string) (major, minor int) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0
	}
	major, err1 := strconv.Atoi(parts[0])
	digits := strings.IndexFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' })
	if digits >= 0 {
		parts[1] = parts[1][:digits]
	}
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	return major, minor
}

// atLeast reports whether the emulated Connect has a feature of version
// major.minor: GET offsets and stop came in 3.5, PATCH and DELETE in 3.6.
func (s *Server) atLeast(major, minor int) bool {
	if s.major == 0 {
		return true
	}
	return s.major > major || s.major == major && s.minor >= minor
}

// handler serves one method of a resource; name is the {connector} path
// parameter, if the resource has one.
type handler func(w http.ResponseWriter, r *http.Request, name string) *restError

// route finds the resource for a path and the handlers of its methods.
// ok is false when no resource matches (Jersey's 404).
func (s *Server) route(segs []string) (methods map[string]handler, name string, ok bool) {
	switch {
	case len(segs) == 0:
		return map[string]handler{http.MethodGet: s.serverInfo}, "", true
	case segs[0] == "connector-plugins" && len(segs) == 1:
		return map[string]handler{http.MethodGet: s.connectorPlugins}, "", true
	case segs[0] != "connectors":
		return nil, "", false
	case len(segs) == 1:
		return map[string]handler{http.MethodGet: s.listConnectors, http.MethodPost: s.createConnector}, "", true
	}
	name = segs[1]
	if len(segs) == 2 {
		return map[string]handler{http.MethodGet: s.connectorInfo, http.MethodDelete: s.deleteConnector}, name, true
	}
	if len(segs) > 3 {
		return nil, "", false
	}
	switch segs[2] {
	case "status":
		methods = map[string]handler{http.MethodGet: s.connectorStatus}
	case "config":
		methods = map[string]handler{http.MethodGet: s.connectorConfig, http.MethodPut: s.putConnectorConfig}
	case "topics":
		methods = map[string]handler{http.MethodGet: s.connectorTopics}
	case "pause":
		methods = map[string]handler{http.MethodPut: s.pause}
	case "resume":
		methods = map[string]handler{http.MethodPut: s.resume}
	case "stop":
		if !s.atLeast(3, 5) {
			return nil, "", false
		}
		methods = map[string]handler{http.MethodPut: s.stopConnector}
	case "offsets":
		if !s.atLeast(3, 5) {
			return nil, "", false
		}
		methods = map[string]handler{http.MethodGet: s.getOffsets}
		if s.atLeast(3, 6) {
			methods[http.MethodPatch] = s.alterOffsets
			methods[http.MethodDelete] = s.resetOffsets
		}
	default:
		return nil, "", false
	}
	return methods, name, true
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	segs, err := splitPath(r.URL.EscapedPath())
	if err != nil {
		writeError(w, errNoResource)
		return
	}
	methods, name, ok := s.route(segs)
	if !ok {
		writeError(w, errNoResource)
		return
	}
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet // JAX-RS answers HEAD with the GET resource
	}
	h, ok := methods[method]
	if !ok {
		writeError(w, errNoMethod)
		return
	}
	// Connect's resources @Consume application/json. Jersey refuses any
	// other declared media type; with none it lets Jackson read the body.
	if ct := r.Header.Get("Content-Type"); ct != "" && (method == http.MethodPatch || method == http.MethodPut || method == http.MethodPost) {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			writeError(w, errMediaType)
			return
		}
	}
	if e := h(w, r, name); e != nil {
		writeError(w, e)
	}
}

// splitPath splits an escaped URL path into unescaped segments, so that a
// connector name may contain an escaped '/'. A trailing slash is ignored.
func splitPath(p string) ([]string, error) {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil, nil
	}
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		u, err := url.PathUnescape(seg)
		if err != nil {
			return nil, err
		}
		segs[i] = u
	}
	return segs, nil
}

// writeJSON writes a compact JSON body as Jackson would: no HTML escaping
// and no trailing newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var b []byte
	if raw, ok := v.(json.RawMessage); ok {
		b = raw
	} else {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			status, b = http.StatusInternalServerError, []byte(`{"error_code":500,"message":"failed to encode the response"}`)
		} else {
			b = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

func writeError(w http.ResponseWriter, e *restError) { writeJSON(w, e.Code, e) }

// serverInfo is GET /: ServerInfo.
func (s *Server) serverInfo(w http.ResponseWriter, _ *http.Request, _ string) *restError {
	writeJSON(w, http.StatusOK, struct {
		Version   string `json:"version"`
		Commit    string `json:"commit"`
		ClusterID string `json:"kafka_cluster_id"`
	}{s.connectVersion, ConnectCommit, s.clusterID})
	return nil
}

// connectorPlugins is GET /connector-plugins: the workers' connector
// plugins (connectorsOnly, the default), sorted by class.
func (s *Server) connectorPlugins(w http.ResponseWriter, _ *http.Request, _ string) *restError {
	writeJSON(w, http.StatusOK, s.h.Plugins())
	return nil
}
