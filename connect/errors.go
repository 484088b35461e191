package connect

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// Error is an HTTP error answer. When Connect sent its usual
// {"error_code":N,"message":"..."} body, Message is that message verbatim;
// otherwise (a proxy's HTML 502, a plain-text 401) Message is
// "<METHOD> <path>: HTTP <status>" plus the first line of the body.
// Error() says that the answer came from Connect's REST API, with its
// status and Connect's own words: "Connect REST: 500 Request timed out".
type Error struct {
	Status  int    // HTTP status code
	Code    int    // Connect's error_code; 0 when the body was not Connect's JSON
	Message string // what Error() returns
	Method  string // e.g. PATCH
	Path    string // request path as sent, e.g. /connectors/my%20conn/offsets
}

func (e *Error) Error() string {
	if e.Code != 0 || e.Method == "" {
		return fmt.Sprintf("Connect REST: %d %s", e.Status, e.Message)
	}
	return "Connect REST: " + e.Message
}

// IsNotFound reports whether err is a 404 from Connect: an unknown connector
// ("Connector x not found", "Unknown connector x", "No status found for connector x").
func IsNotFound(err error) bool { return hasStatus(err, http.StatusNotFound) }

// IsConflict reports a 409: Connect is rebalancing or has no known leader;
// the request can be retried shortly.
func IsConflict(err error) bool { return hasStatus(err, http.StatusConflict) }

// IsTopicTrackingDisabled reports the 403 of GET /connectors/{name}/topics on
// a worker with topic.tracking.enable=false.
func IsTopicTrackingDisabled(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusForbidden && e.Message == "Topic tracking is disabled."
}

func hasStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}

// responseError turns a non-2xx answer into *Error.
func responseError(method, path string, resp *http.Response, body []byte) *Error {
	e := &Error{Status: resp.StatusCode, Method: method, Path: path}
	var msg struct {
		Code    *int    `json:"error_code"`
		Message *string `json:"message"`
	}
	if json.Unmarshal(body, &msg) == nil && msg.Message != nil && *msg.Message != "" {
		e.Message = *msg.Message
		if msg.Code != nil {
			e.Code = *msg.Code
		}
		return e
	}
	e.Message = fmt.Sprintf("%s %s: HTTP %s", method, path, statusText(resp))
	if line := firstLine(body, 200); line != "" && !strings.EqualFold(line, statusText(resp)) {
		e.Message += ": " + line
	}
	return e
}

func statusText(resp *http.Response) string {
	if t := http.StatusText(resp.StatusCode); t != "" {
		return fmt.Sprintf("%d %s", resp.StatusCode, t)
	}
	return fmt.Sprint(resp.StatusCode)
}

// firstLine is the first non-blank line of body with HTML tags dropped
// (so nginx's "<html>" line gives way to its title), cut to max runes
// (0 = 200).
func firstLine(body []byte, max int) string {
	if max <= 0 {
		max = 200
	}
	s := string(body)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "?")
	}
	for _, line := range strings.Split(s, "\n") {
		line = strings.Join(strings.Fields(stripTags(line)), " ")
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > max {
			r := []rune(line)
			line = string(r[:max]) + "…"
		}
		return line
	}
	return ""
}

func stripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
			b.WriteByte(' ')
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ReachError is a call that got no HTTP answer: refused, unresolvable,
// TLS failure, timed out, cancelled. Error() is one line naming the URL
// (password redacted); Unwrap gives the cause, so errors.Is(err,
// context.DeadlineExceeded) works.
type ReachError struct {
	URL    string // redacted
	Reason string // short cause, e.g. "connection refused", "timed out after 10s"
	Err    error
}

func (e *ReachError) Error() string {
	return "cannot reach Kafka Connect at " + e.URL + ": " + e.Reason
}

func (e *ReachError) Unwrap() error { return e.Err }

// reachError classifies a transport failure. parent is the caller's context,
// call the per-call one derived from it: only when call alone expired did our
// own Timeout elapse.
func (c *Client) reachError(parent, call context.Context, timeout time.Duration, err error) error {
	e := &ReachError{URL: c.shown, Err: err}
	switch {
	case parent.Err() != nil:
		e.Err = parent.Err()
		e.Reason = "request cancelled"
		if errors.Is(e.Err, context.DeadlineExceeded) {
			// The caller's deadline, not ours: the caller says how long
			// it waited in all.
			e.Reason = "no answer before the command's time limit"
		}
	case call.Err() != nil:
		e.Err = call.Err()
		e.Reason = fmt.Sprintf("timed out after %s", timeout)
	default:
		e.Reason = reason(err)
	}
	return e
}

// reason is the part of a transport error an operator can act on. Go's
// own text ("Get \"http://…\": dial tcp 10.0.0.5:8083: connect: connection
// refused") repeats what ReachError already says.
func reason(err error) string {
	var (
		unknownCA x509.UnknownAuthorityError
		hostErr   x509.HostnameError
		invalid   x509.CertificateInvalidError
		verifyErr *tls.CertificateVerificationError
		header    tls.RecordHeaderError
		dnsErr    *net.DNSError
		opErr     *net.OpError
	)
	switch {
	case errors.As(err, &unknownCA):
		return "TLS certificate signed by unknown authority (give Kafka Connect's CA bundle with --connect-ca)"
	case errors.As(err, &hostErr):
		return "TLS " + strings.TrimPrefix(hostErr.Error(), "x509: ")
	case errors.As(err, &invalid):
		return "TLS " + strings.TrimPrefix(invalid.Error(), "x509: ")
	case errors.As(err, &verifyErr):
		return "TLS certificate rejected: " + strings.TrimPrefix(verifyErr.Err.Error(), "x509: ")
	case strings.Contains(err.Error(), "remote error: tls: certificate required"):
		return "TLS: Kafka Connect requires a client certificate (give --connect-cert and --connect-key)"
	case strings.Contains(err.Error(), "remote error: tls: "):
		msg := err.Error()
		return "TLS: Kafka Connect refused the client certificate (" + msg[strings.Index(msg, "remote error: "):] + ")"
	case errors.As(err, &header):
		return "the server does not speak TLS (try http:// instead of https://)"
	case strings.HasSuffix(err.Error(), "server gave HTTP response to HTTPS client"):
		// net/http turns the RecordHeaderError into a plain string here.
		return "the server answers plain HTTP, not HTTPS (try http:// instead of https://)"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by peer"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "no such host " + dnsErr.Name
		}
		return dnsErr.Error()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed before a full answer"
	case errors.As(err, &opErr) && opErr.Err != nil:
		return opErr.Err.Error()
	}
	// http.Client wraps in *url.Error, whose text repeats method and URL.
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// IsMisconfigured reports a failure that is koff's configuration, not
// Connect being down: refused credentials (401, 403 other than topic
// tracking) or TLS that does not fit (CA, host name, client certificate,
// http vs https). Reads that can go on without Connect stop on these, so
// that a wrong flag is never taken for an outage.
func IsMisconfigured(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden && !IsTopicTrackingDisabled(err)
	}
	var r *ReachError
	return errors.As(err, &r) && (strings.Contains(r.Reason, "TLS") || strings.Contains(r.Reason, "HTTPS"))
}
