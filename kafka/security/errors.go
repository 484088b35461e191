package security

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"strings"

	kafkago "github.com/segmentio/kafka-go"
)

// Describe turns a kafka-go error into one line for a status bar or
// stderr: authentication and TLS failures say what to do about them.
// Config.Describe knows the SASL user as well, for brokers that answer a
// bad password with an error code rather than by hanging up.
func Describe(err error) string { return describe(err, nil) }

// Describe is Describe with this set-up's SASL user and mechanism.
func (s *Security) Describe(err error) string { return describe(err, s) }

func describe(err error, sec *Security) string {
	if err == nil {
		return ""
	}
	var (
		hang     *HangUpError
		tlsErr   *TLSError
		op       *net.OpError
		notKafka *NotKafkaError
		silent   *NoAnswerError
	)
	switch {
	case errors.As(err, &notKafka):
		return notKafka.Error()
	case errors.As(err, &silent):
		return silent.Error()
	case errors.As(err, &hang):
		return hang.Error()
	case errors.As(err, &tlsErr):
		return tlsErr.Error()
	case errors.Is(err, kafkago.SASLAuthenticationFailed):
		why := brokerMessage(err, kafkago.SASLAuthenticationFailed)
		if sec.Mechanism() == "" {
			return "authentication failed: " + why
		}
		return authFailed(sec.User(), sec.Mechanism(), why)
	case errors.Is(err, kafkago.UnsupportedSASLMechanism):
		m := sec.Mechanism()
		if m == "" {
			m = "the SASL mechanism"
		}
		return "the broker does not enable " + m + " on this listener (ask which of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 it takes)"
	case isTLSCause(err):
		return describeTLS("", err)
	case errors.As(err, &op):
		return op.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out waiting for the broker"
	}
	s := err.Error()
	// kafka-go prefixes errors with the method that failed; users need the cause.
	for strings.HasPrefix(s, "kafka.(") {
		i := strings.Index(s, ": ")
		if i < 0 {
			break
		}
		s = s[i+2:]
	}
	return s
}

// brokerMessage is what the broker said with an error code, e.g.
// "Authentication failed during authentication due to invalid credentials
// with SASL mechanism SCRAM-SHA-256", or kafka-go's title without one.
func brokerMessage(err error, code kafkago.Error) string {
	s := err.Error()
	if i := strings.Index(s, code.Error()+": "); i >= 0 {
		return s[i+len(code.Error())+2:]
	}
	return "the broker refused the credentials"
}

func isTLSCause(err error) bool {
	var (
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		cve *tls.CertificateVerificationError
		rh  tls.RecordHeaderError
		al  tls.AlertError
	)
	return errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) || errors.As(err, &cve) ||
		errors.As(err, &rh) || errors.As(err, &al) || strings.Contains(err.Error(), "remote error: tls: ")
}

// describeTLS explains a failed TLS handshake with addr (may be empty).
func describeTLS(addr string, err error) string {
	var (
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		cve *tls.CertificateVerificationError
		rh  tls.RecordHeaderError
	)
	at := ""
	if addr != "" {
		at = " at " + addr
	}
	s := err.Error()
	switch {
	case errors.As(err, &ua):
		return "TLS: certificate signed by unknown authority (give the broker's CA with --tls-ca or ssl.truststore.location)"
	case errors.As(err, &he):
		return "TLS: " + strings.TrimPrefix(he.Error(), "x509: ") + " (connect by a name the certificate has, or set ssl.endpoint.identification.algorithm= to skip only the host-name check)"
	case errors.As(err, &ci):
		return "TLS: " + strings.TrimPrefix(ci.Error(), "x509: ")
	case errors.As(err, &cve):
		return "TLS: certificate rejected: " + strings.TrimPrefix(cve.Err.Error(), "x509: ")
	case errors.As(err, &rh):
		return "TLS: the broker" + at + " does not speak TLS (a PLAINTEXT or SASL_PLAINTEXT listener? drop --tls, or use security.protocol=PLAINTEXT / SASL_PLAINTEXT)"
	case strings.Contains(s, "remote error: tls: certificate required"):
		return "TLS: the broker requires a client certificate (give --tls-cert and --tls-key, or ssl.keystore.location)"
	case strings.Contains(s, "remote error: tls: unknown certificate authority"), strings.Contains(s, "remote error: tls: bad certificate"):
		return "TLS: the broker rejected the client certificate (" + remoteAlert(s) + "; is it signed by a CA the broker trusts?)"
	case strings.Contains(s, "remote error: tls: "):
		return "TLS: the broker refused the handshake (" + remoteAlert(s) + "; does it require a client certificate or another TLS version?)"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "TLS: the broker" + at + " closed the connection during the handshake (is it a TLS listener?)"
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return "TLS: no handshake from the broker" + at + " in time (is it a TLS listener? a PLAINTEXT one waits silently)"
	}
	return "TLS: " + strings.TrimPrefix(s, "tls: ")
}

func remoteAlert(s string) string { return s[strings.Index(s, "remote error: "):] }

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
