package connect

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
)

// transport is a clone of http.DefaultTransport (so proxies from the
// environment still work on jump hosts) with koff's TLS settings for https.
func transport(scheme, caFile string) (*http.Transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if scheme != "https" {
		if caFile != "" {
			// Silently ignoring it would let an operator believe the link is TLS.
			return nil, errors.New("--connect-ca: given, but --connect-url is http://, not https://")
		}
		return tr, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pool, err := loadCA(caFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	tr.TLSClientConfig = cfg
	return tr, nil
}

// loadCA reads a PEM bundle. Only that bundle is trusted (as curl --cacert
// does), so a test against a private CA cannot pass by accident.
func loadCA(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--connect-ca: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--connect-ca: no PEM certificates in %s", file)
	}
	return pool, nil
}
