package security

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// pemRE finds PEM blocks leniently. Kafka accepts inline PEM values
// (ssl.truststore.certificates, ssl.keystore.key) whose line breaks a
// properties-file continuation has swallowed, "-----BEGIN
// CERTIFICATE-----MIIB…", which encoding/pem rejects.
var pemRE = regexp.MustCompile(`(?s)-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END ([A-Z0-9 ]+)-----`)

var errEncryptedKey = errors.New("the private key is encrypted, which koff does not support; decrypt it with: openssl pkcs8 -in key.pem -out key-plain.pem (and keep that file private)")

// pemBlocks returns every PEM block in data, in order.
func pemBlocks(data []byte) ([]*pem.Block, error) {
	var out []*pem.Block
	for _, m := range pemRE.FindAllSubmatch(data, -1) {
		typ, body := string(m[1]), string(m[2])
		if typ != string(m[3]) {
			return nil, fmt.Errorf("a %s block ends as %s", typ, m[3])
		}
		if typ == "ENCRYPTED PRIVATE KEY" || strings.Contains(body, "Proc-Type:") {
			return nil, errEncryptedKey
		}
		der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(body), ""))
		if err != nil {
			return nil, fmt.Errorf("a %s block is not valid base64", typ)
		}
		out = append(out, &pem.Block{Type: typ, Bytes: der})
	}
	return out, nil
}

func isPEM(data []byte) bool { return pemRE.Match(data) }

// certPool is the CA certificates in a PEM bundle; only they are trusted,
// as with a Java truststore or kcat's ssl.ca.location.
func certPool(from string, data []byte) (*x509.CertPool, error) {
	blocks, err := pemBlocks(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", from, err)
	}
	pool := x509.NewCertPool()
	n := 0
	for _, b := range blocks {
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: a certificate does not parse: %v", from, err)
		}
		pool.AddCert(c)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: no PEM certificates in it", from)
	}
	return pool, nil
}

// keyPair builds the client certificate from a chain and a key, each PEM;
// both may be the same bytes (a PEM that holds key and chain).
func keyPair(from string, chain, key []byte) (tls.Certificate, error) {
	cb, err := pemBlocks(chain)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s: %v", from, err)
	}
	kb, err := pemBlocks(key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s: %v", from, err)
	}
	var certPEM, keyPEM []byte
	for _, b := range cb {
		if b.Type == "CERTIFICATE" {
			certPEM = append(certPEM, pem.EncodeToMemory(b)...)
		}
	}
	for _, b := range kb {
		if strings.HasSuffix(b.Type, "PRIVATE KEY") {
			keyPEM = pem.EncodeToMemory(b)
			break
		}
	}
	switch {
	case certPEM == nil:
		return tls.Certificate{}, fmt.Errorf("%s: no PEM certificate in it", from)
	case keyPEM == nil:
		return tls.Certificate{}, fmt.Errorf("%s: no PEM private key (give --tls-key, or ssl.keystore.key, or put the key in the same file)", from)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s: %s", from, strings.TrimPrefix(err.Error(), "tls: "))
	}
	return cert, nil
}

// tlsConfig builds the client side of TLS. Certificates are verified by
// default. ssl.endpoint.identification.algorithm= keeps the chain check and
// drops only the host-name check: Go can only do that by skipping its own
// verification and verifying the chain again in VerifyConnection.
func (s Settings) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: max(tls.VersionTLS12, s.MinTLS), MaxVersion: s.MaxTLS}
	if len(s.TrustPEM) > 0 {
		pool, err := certPool(s.trustName(), s.TrustPEM)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if len(s.CertPEM) > 0 {
		from := s.certFrom
		if from == "" {
			from = "client certificate"
		}
		cert, err := keyPair(from, s.CertPEM, []byte(s.KeyPEM))
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	switch {
	case s.InsecureSkipVerify:
		cfg.InsecureSkipVerify = true
	case s.NoHostnameCheck:
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = verifyChain(cfg.RootCAs)
	}
	return cfg, nil
}

func (s Settings) trustName() string {
	if s.trustFrom != "" {
		return s.trustFrom
	}
	return "CA certificates"
}

// verifyChain checks the broker's chain against roots (nil: the system's)
// without looking at the host name.
func verifyChain(roots *x509.CertPool) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("tls: the broker sent no certificate")
		}
		opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
			return &tls.CertificateVerificationError{UnverifiedCertificates: cs.PeerCertificates, Err: err}
		}
		return nil
	}
}
