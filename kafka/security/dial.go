package security

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync/atomic"
	"syscall"

	"koff/model/text"
)

// Kafka API keys the dialer tells apart when a broker hangs up.
const (
	apiSASLHandshake    = 17
	apiVersions         = 18
	apiSASLAuthenticate = 36
)

// dial is koff's Transport.Dial. It does TLS itself rather than leaving it
// to kafka-go, so a failed handshake is reported as one (*TLSError), and it
// watches which Kafka request each connection sent last and what came
// back, so a broker that just closes the connection is explained
// (*HangUpError) from evidence: during SASL that means the credentials
// were refused (kfake and some proxies say nothing else); bytes of a TLS
// record where a Kafka answer belongs, or a clean close before the first
// answer, a listener that expects TLS; a close right after the answer to
// the first request (ApiVersions, which a SASL listener answers before
// authentication), a listener that expects SASL. A reset is never taken
// for either: it says after how many answers, and which request waited.
// Any other hang-up is only that.
func (s *Security) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	var d net.Dialer // ctx carries kafka-go's dial deadline
	raw, err := d.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	conn := raw
	if s != nil && s.tls != nil {
		cfg := s.tls
		if cfg.ServerName == "" {
			host, _, _ := net.SplitHostPort(address)
			cfg = cfg.Clone()
			cfg.ServerName = host
		}
		tc := tls.Client(raw, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, &TLSError{Addr: address, Err: err}
		}
		conn = tc
	}
	return &watchConn{Conn: conn, sec: s, addr: address}, nil
}

// watchConn follows the request frames written on a connection (4-byte
// size, then a 2-byte API key) and turns the broker's hang-up into a
// *HangUpError naming the last request.
type watchConn struct {
	net.Conn
	sec  *Security
	addr string

	hdr     [6]byte
	hdrN    int
	remain  int
	sent    atomic.Int32 // requests started
	lastAPI atomic.Int32

	// What the broker sent back, read by one goroutine at a time.
	rhdr    [4]byte
	rhdrN   int
	rremain int
	answers int     // responses read in full
	partial bool    // some bytes of the next response were read
	first   [4]byte // the first bytes the broker sent
	firstN  int
}

func (c *watchConn) Write(p []byte) (int, error) {
	c.track(p)
	return c.Conn.Write(p)
}

func (c *watchConn) track(p []byte) {
	for len(p) > 0 {
		if c.remain > 0 {
			n := min(c.remain, len(p))
			c.remain -= n
			p = p[n:]
			continue
		}
		n := copy(c.hdr[c.hdrN:], p)
		c.hdrN += n
		p = p[n:]
		if c.hdrN == len(c.hdr) {
			size := int(int32(binary.BigEndian.Uint32(c.hdr[:4])))
			c.lastAPI.Store(int32(binary.BigEndian.Uint16(c.hdr[4:])))
			c.sent.Add(1)
			c.remain, c.hdrN = max(size-2, 0), 0
		}
	}
}

func (c *watchConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	fresh := c.firstN == 0
	c.trackRead(p[:n])
	if fresh && n > 0 && c.firstN == len(c.first) && c.answers == 0 && printable(c.first[:]) {
		// No Kafka response starts so: its size would be over 500 MB.
		return 0, &NotKafkaError{Addr: c.addr, Said: firstLine(p[:n])}
	}
	if n == 0 && err != nil && c.firstN == 0 && c.sent.Load() > 0 && isTimeout(err) {
		return 0, &NoAnswerError{Addr: c.addr, API: int16(c.lastAPI.Load()), Err: err}
	}
	if n == 0 && err != nil && hungUp(err) {
		return 0, &HangUpError{
			Addr: c.addr, API: int16(c.lastAPI.Load()), First: c.sent.Load() <= 1,
			TLS: c.sec != nil && c.sec.tls != nil, Mechanism: c.sec.Mechanism(), User: c.sec.User(),
			Answers: c.answers, Partial: c.partial, TLSReply: tlsRecord(c.first[:c.firstN]),
			Waiting: int(c.sent.Load()) > c.answers,
			Reset:   errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE),
			Err:     err,
		}
	}
	return n, err
}

// trackRead follows response frames (4-byte size, then the body).
func (c *watchConn) trackRead(p []byte) {
	if c.firstN < len(c.first) {
		c.firstN += copy(c.first[c.firstN:], p)
	}
	for len(p) > 0 {
		c.partial = true
		if c.rremain > 0 {
			n := min(c.rremain, len(p))
			c.rremain -= n
			p = p[n:]
			if c.rremain == 0 {
				c.answers++
				c.partial = false
			}
			continue
		}
		n := copy(c.rhdr[c.rhdrN:], p)
		c.rhdrN += n
		p = p[n:]
		if c.rhdrN == len(c.rhdr) {
			c.rremain, c.rhdrN = int(int32(binary.BigEndian.Uint32(c.rhdr[:]))), 0
			if c.rremain <= 0 {
				c.rremain = 0
				c.answers++
				c.partial = false
			}
		}
	}
}

// tlsRecord reports bytes that begin a TLS record (an alert or a
// handshake, TLS 1.0 to 1.3) rather than a Kafka response's size.
func tlsRecord(b []byte) bool {
	return len(b) >= 3 && (b[0] == 0x15 || b[0] == 0x16) && b[1] == 3 && b[2] <= 4
}

func hungUp(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// HangUpError is a broker closing the connection instead of answering.
// Its text says what that most likely means, from the request it closed
// on. It deliberately does not unwrap to io.EOF: kafka-go would turn that
// into an anonymous "unexpected EOF".
type HangUpError struct {
	Addr      string
	API       int16 // the last request's API key
	First     bool  // it was the connection's first request
	TLS       bool
	Mechanism string // SASL mechanism in use, "" without SASL
	User      string
	Answers   int   // responses the connection had read in full
	Partial   bool  // part of the next response had been read
	TLSReply  bool  // the broker's first bytes were a TLS record
	Reset     bool  // a reset rather than a clean close
	Waiting   bool  // the last request had no answer yet
	Err       error // the read error: EOF or connection reset
}

func (e *HangUpError) Error() string {
	sasl := e.API == apiSASLAuthenticate || e.API == apiSASLHandshake
	switch {
	case e.Reset:
		// A broker refusing credentials or a client that skipped SASL
		// closes the connection; a reset is something else (a proxy, a
		// restart, the network), so it says only what koff saw.
		during := ""
		if e.Waiting {
			during = ", waiting for the answer to " + apiName(e.API)
			if sasl {
				during = " during SASL authentication (" + apiName(e.API) + ")"
			}
		}
		return "the broker at " + e.Addr + " reset the connection after " + answers(e.Answers) + during
	case e.Mechanism != "" && sasl && e.Waiting:
		return authFailed(e.User, e.Mechanism, "the broker closed the connection (wrong user or password, or "+e.Mechanism+" not enabled on this listener)")
	case !e.TLS && e.TLSReply:
		return "the broker at " + e.Addr + " answered with TLS (a TLS listener: use --tls or security.protocol=SSL / SASL_SSL)"
	case !e.TLS && e.First && e.Answers == 0 && !e.Partial && !e.Reset:
		return "the broker at " + e.Addr + " closed the connection on the first request (a TLS listener? use --tls or security.protocol=SSL / SASL_SSL)"
	case e.Mechanism == "" && e.Answers == 1 && !e.Partial && !e.First && e.API != apiVersions:
		// Only the ApiVersions answer, then a hang-up on the next request:
		// what a SASL listener does to a client that skips authentication.
		return "the broker at " + e.Addr + " closed the connection after the first answer (a SASL listener? give --sasl-mechanism, or security.protocol=SASL_SSL / SASL_PLAINTEXT in --command-config)"
	}
	return "the broker at " + e.Addr + " closed the connection"
}

// answers counts the answers a connection had before it went away.
func answers(n int) string {
	switch n {
	case 0:
		return "no answer on it"
	case 1:
		return "1 answer on it"
	}
	return strconv.Itoa(n) + " answers on it"
}

// apiName names the Kafka requests koff sends; others by their key.
func apiName(key int16) string {
	names := map[int16]string{0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 8: "OffsetCommit", 9: "OffsetFetch",
		10: "FindCoordinator", 15: "DescribeGroups", 16: "ListGroups", 17: "SaslHandshake", 18: "ApiVersions", 32: "DescribeConfigs",
		36: "SaslAuthenticate", 42: "DeleteGroups", 47: "OffsetDelete"}
	if n, ok := names[key]; ok {
		return n
	}
	return "request " + strconv.Itoa(int(key))
}

// TLSError is a failed TLS handshake with a broker.
type TLSError struct {
	Addr string
	Err  error
}

func (e *TLSError) Error() string { return describeTLS(e.Addr, e.Err) }
func (e *TLSError) Unwrap() error { return e.Err }

func authFailed(user, mechanism, why string) string {
	return "authentication failed for user " + user + " (" + mechanism + "): " + why
}

// NotKafkaError is a server that answered a Kafka request with text (an
// SSH banner, an HTTP or SMTP greeting): the port is not a Kafka broker's.
type NotKafkaError struct {
	Addr string
	Said string // its first line, escaped and cut
}

func (e *NotKafkaError) Error() string {
	return fmt.Sprintf("%s answered %q: not a Kafka broker? (check the port of -b / --bootstrap-server)", e.Addr, e.Said)
}

// NoAnswerError is a server that took the connection but did not answer
// Kafka's first request: an HTTP server waiting for a request line, a
// proxy with nothing behind it. It is still a timeout, for kafka-go.
type NoAnswerError struct {
	Addr string
	API  int16
	Err  error
}

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("%s accepted the connection but sent nothing back to Kafka's first request (%s): not a Kafka broker? (check the port of -b / --bootstrap-server)", e.Addr, apiName(e.API))
}

func (e *NoAnswerError) Unwrap() error   { return e.Err }
func (e *NoAnswerError) Timeout() bool   { return true }
func (e *NoAnswerError) Temporary() bool { return true }

// printable: every byte is printable ASCII, as text protocols greet.
func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// firstLine is the start of a text answer, safe to print.
func firstLine(b []byte) string {
	if i := bytes.IndexAny(b, "\r\n"); i >= 0 {
		b = b[:i]
	}
	if len(b) > 60 {
		b = append(b[:60:60], "…"...)
	}
	return text.Sanitize(string(b))
}
