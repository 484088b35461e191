package demo

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// TLSFiles are the PEM files WriteTLS keeps in its directory, each 0600.
// The CA's private key is never written: nobody can sign more
// certificates with this CA once WriteTLS returns.
type TLSFiles struct {
	Dir        string
	CA         string // ca.pem: the CA certificate clients trust
	Cert, Key  string // server.pem, server-key.pem: the broker's and the REST emulator's
	ClientCert string // client.pem: a client certificate signed by the CA, for mTLS
	ClientKey  string // client-key.pem
}

// tlsValidity is how long the demo certificates last: long enough that a
// kept --tls-dir never expires under anyone.
const tlsValidity = 10 * 365 * 24 * time.Hour

// WriteTLS makes a CA, a server certificate for localhost, 127.0.0.1, ::1
// and the extra hosts, and a client certificate, all ECDSA P-256, in dir
// (created 0700 if missing). When dir already holds a set whose server
// certificate the CA verifies for every host, it is kept, so clients
// configured with an earlier ca.pem keep working.
func WriteTLS(dir string, hosts ...string) (TLSFiles, error) {
	f := TLSFiles{
		Dir:        dir,
		CA:         filepath.Join(dir, "ca.pem"),
		Cert:       filepath.Join(dir, "server.pem"),
		Key:        filepath.Join(dir, "server-key.pem"),
		ClientCert: filepath.Join(dir, "client.pem"),
		ClientKey:  filepath.Join(dir, "client-key.pem"),
	}
	hosts = append([]string{"localhost", "127.0.0.1", "::1"}, hosts...)
	if f.valid(hosts) {
		return f, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return f, fmt.Errorf("--tls-dir: %w", err)
	}
	caKey, caCert, caDER, err := newCA()
	if err != nil {
		return f, err
	}
	srvKey, srvDER, err := issue(caKey, caCert, "koff demo broker", hosts, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return f, err
	}
	cliKey, cliDER, err := issue(caKey, caCert, "koff demo client", nil, x509.ExtKeyUsageClientAuth)
	if err != nil {
		return f, err
	}
	writes := []struct {
		path, typ string
		der       []byte
	}{
		{f.CA, "CERTIFICATE", caDER},
		{f.Cert, "CERTIFICATE", srvDER}, {f.Key, "PRIVATE KEY", srvKey},
		{f.ClientCert, "CERTIFICATE", cliDER}, {f.ClientKey, "PRIVATE KEY", cliKey},
	}
	for _, w := range writes {
		data := pem.EncodeToMemory(&pem.Block{Type: w.typ, Bytes: w.der})
		if err := writePrivate(w.path, data); err != nil {
			return f, err
		}
	}
	return f, nil
}

// writePrivate writes a file readable by its owner only, even if it
// existed with looser permissions.
func writePrivate(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("--tls-dir: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("--tls-dir: %w", err)
	}
	return nil
}

// valid reports whether the files exist and the server certificate
// verifies against the CA for every host for at least another day.
func (f TLSFiles) valid(hosts []string) bool {
	srv, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return false
	}
	if _, err := tls.LoadX509KeyPair(f.ClientCert, f.ClientKey); err != nil {
		return false
	}
	pool, err := f.caPool()
	if err != nil {
		return false
	}
	leaf, err := x509.ParseCertificate(srv.Certificate[0])
	if err != nil {
		return false
	}
	for _, h := range hosts {
		opts := x509.VerifyOptions{Roots: pool, DNSName: h, CurrentTime: time.Now().Add(24 * time.Hour)}
		if _, err := leaf.Verify(opts); err != nil {
			return false
		}
	}
	return true
}

func (f TLSFiles) caPool() (*x509.CertPool, error) {
	data, err := os.ReadFile(f.CA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("no certificate in %s", f.CA)
	}
	return pool, nil
}

// serverConfig is the TLS config of the broker and the REST emulator;
// clientAuth makes both require a certificate the CA signed.
func (f TLSFiles) serverConfig(clientAuth bool) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return nil, fmt.Errorf("server certificate: %w", err)
	}
	pool, err := f.caPool()
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool, MinVersion: tls.VersionTLS12}
	if clientAuth {
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// clientConfig is what the simulated workers dial with: the CA, and the
// client certificate in case the broker asks for one.
func (f TLSFiles) clientConfig() (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(f.ClientCert, f.ClientKey)
	if err != nil {
		return nil, fmt.Errorf("client certificate: %w", err)
	}
	pool, err := f.caPool()
	if err != nil {
		return nil, err
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

func newCA() (*ecdsa.PrivateKey, *x509.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	tmpl := template("koff demo CA")
	tmpl.IsCA = true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	tmpl.MaxPathLenZero = true
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("make CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	return key, cert, der, err
}

// issue signs a leaf certificate; it returns the PKCS#8 key and the DER.
func issue(caKey *ecdsa.PrivateKey, ca *x509.Certificate, cn string, hosts []string, usage x509.ExtKeyUsage) ([]byte, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := template(cn)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{usage}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else if h != "" {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, fmt.Errorf("sign %s: %w", cn, err)
	}
	pk, err := x509.MarshalPKCS8PrivateKey(key)
	return pk, der, err
}

func template(cn string) *x509.Certificate {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		panic(errors.New("crypto/rand failed")) // never happens on Linux
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"koff demo"}},
		NotBefore:             now.Add(-time.Hour), // tolerate a little clock skew
		NotAfter:              now.Add(tlsValidity),
		BasicConstraintsValid: true,
	}
}
