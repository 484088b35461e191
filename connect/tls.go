package connect

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// transport is a clone of http.DefaultTransport (so proxies from the
// environment still work on jump hosts) with koff's TLS settings for https.
func transport(scheme string, cfg Config) (*http.Transport, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if scheme != "https" {
		// Silently ignoring TLS files would let an operator believe the
		// link is TLS.
		switch {
		case cfg.CAFile != "":
			return nil, errors.New("--connect-ca: given, but --connect-url is http://, not https://")
		case cfg.CertFile != "" || cfg.KeyFile != "":
			return nil, errors.New("--connect-cert: given, but --connect-url is http://, not https://")
		}
		return tr, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.CAFile != "" {
		pool, err := loadCA(cfg.CAFile)
		if err != nil {
			return nil, err
		}
		tc.RootCAs = pool
	}
	if cfg.CertFile != "" || cfg.KeyFile != "" {
		cert, err := loadClientCert(cfg.CertFile, cfg.KeyFile)
		if err != nil {
			return nil, err
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	tr.TLSClientConfig = tc
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

// loadClientCert reads the mTLS certificate; without a key file the
// certificate file must hold the key as well. Messages name the files,
// never their contents.
func loadClientCert(certFile, keyFile string) (tls.Certificate, error) {
	if certFile == "" {
		return tls.Certificate{}, errors.New("--connect-key needs --connect-cert")
	}
	if keyFile == "" {
		cert, err := tls.LoadX509KeyPair(certFile, certFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, os.ErrPermission) {
			return cert, fmt.Errorf("--connect-cert %s: no usable private key in it; give --connect-key", certFile)
		}
		keyFile = certFile
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "tls: ")
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			msg = err.Error()
		}
		return tls.Certificate{}, fmt.Errorf("--connect-cert %s / --connect-key %s: %s", certFile, keyFile, msg)
	}
	return cert, nil
}
