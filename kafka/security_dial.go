package kafka

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"syscall"
)

// Kafka API keys the dialer tells apart when a broker hangs up.
const (
	apiSASLHandshake    = 17
	apiVersions         = 18
	apiSASLAuthenticate = 36
)

// dial is koff's Transport.Dial. It does TLS itself rather than leaving it
// to kafka-go, so a failed handshake is reported as one (*TLSError), and it
// watches which Kafka request each connection sent last, so a broker that
// just closes the connection is explained (*HangUpError): during SASL that
// means the credentials were refused (kfake and some proxies say nothing
// else); on the very first request, a listener that expects TLS; after the
// first request, a listener that expects SASL.
func (s *Security) dial(ctx context.Context, network, address string) (net.Conn, error) {
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
	if n == 0 && err != nil && hungUp(err) {
		return 0, &HangUpError{
			Addr: c.addr, API: int16(c.lastAPI.Load()), First: c.sent.Load() <= 1,
			TLS: c.sec != nil && c.sec.tls != nil, Mechanism: c.sec.Mechanism(), User: c.sec.User(),
			Err: err,
		}
	}
	return n, err
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
	Err       error // the read error: EOF or connection reset
}

func (e *HangUpError) Error() string {
	switch {
	case e.Mechanism != "" && (e.API == apiSASLAuthenticate || e.API == apiSASLHandshake):
		return authFailed(e.User, e.Mechanism, "the broker closed the connection (wrong user or password, or "+e.Mechanism+" not enabled on this listener)")
	case e.First && !e.TLS:
		return "the broker at " + e.Addr + " closed the connection on the first request (a TLS listener? use --tls or security.protocol=SSL / SASL_SSL)"
	case e.Mechanism == "" && !e.First:
		return "the broker at " + e.Addr + " closed the connection (a SASL listener? give --sasl-mechanism, or security.protocol=SASL_SSL / SASL_PLAINTEXT in --command-config)"
	}
	return "the broker at " + e.Addr + " closed the connection"
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
