package security

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// readKeys are the client properties koff reads from --command-config.
var readKeys = []string{
	"security.protocol", "sasl.mechanism", "sasl.jaas.config",
	"ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.certificates", "ssl.truststore.password",
	"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.key", "ssl.keystore.certificate.chain",
	"ssl.keystore.password", "ssl.key.password",
	"ssl.endpoint.identification.algorithm", "ssl.enabled.protocols", "ssl.protocol",
	"client.id", "bootstrap.servers",
}

// IgnoredProperties are client settings koff accepts and ignores: they
// tune timeouts, retries and buffers, which koff sets itself, and they are
// common in the client.properties operators already have.
var IgnoredProperties = []string{
	"request.timeout.ms", "default.api.timeout.ms", "retries", "retry.backoff.ms", "retry.backoff.max.ms",
	"reconnect.backoff.ms", "reconnect.backoff.max.ms", "connections.max.idle.ms", "metadata.max.age.ms",
	"socket.connection.setup.timeout.ms", "socket.connection.setup.timeout.max.ms",
	"client.dns.lookup", "send.buffer.bytes", "receive.buffer.bytes",
}

// LoadCommandConfig reads a Kafka client properties file (--command-config)
// as Kafka's own tools take it. Every error is one line naming the file,
// the line and the key; none quotes a secret.
func LoadCommandConfig(path string) (Settings, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return Settings{}, fmt.Errorf("--command-config: cannot read %s: %v", path, err)
	}
	props, err := ParseProperties(string(data))
	if err != nil {
		var pe *PropertyError
		if errors.As(err, &pe) {
			msg := pe.Msg
			if pe.Key != "" {
				msg = pe.Key + ": " + msg
			}
			return Settings{}, fmt.Errorf("%s:%d: %s", path, pe.Line, msg)
		}
		return Settings{}, fmt.Errorf("%s: %v", path, err)
	}
	return commandConfig(path, props)
}

// propFile is a parsed file with helpers for messages.
type propFile struct {
	name string
	m    map[string]Property
}

func (f propFile) get(key string) (Property, bool) { p, ok := f.m[key]; return p, ok }

func (f propFile) errf(p Property, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", f.name, p.Line, p.Key, fmt.Sprintf(format, args...))
}

// from names a setting for messages: "ssl.truststore.location (client.properties:4)".
func (f propFile) from(p Property) string { return fmt.Sprintf("%s (%s:%d)", p.Key, f.name, p.Line) }

func commandConfig(name string, props []Property) (Settings, error) {
	f := propFile{name: name, m: map[string]Property{}}
	for _, p := range props {
		if !contains(readKeys, p.Key) && !contains(IgnoredProperties, p.Key) {
			return Settings{}, unknownKey(name, p)
		}
		f.m[p.Key] = p // later duplicates win, as in Java
	}
	var s Settings
	if p, ok := f.get("security.protocol"); ok {
		s.Protocol, s.protocolFrom = strings.ToUpper(strings.TrimSpace(p.Value)), f.from(p)
		if !contains([]string{"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"}, s.Protocol) {
			return s, f.errf(p, "%q is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL", p.Value)
		}
	}
	if p, ok := f.get("sasl.mechanism"); ok {
		m, err := checkMechanism("sasl.mechanism", p.Value)
		if err != nil {
			return s, fmt.Errorf("%s:%d: %v", name, p.Line, err)
		}
		s.Mechanism = m
	}
	if p, ok := f.get("sasl.jaas.config"); ok {
		if err := s.readJAAS(f, p); err != nil {
			return s, err
		}
	}
	for _, step := range []func(propFile) error{s.readTruststore, s.readKeystore, s.readTLSOptions} {
		if err := step(f); err != nil {
			return s, err
		}
	}
	if p, ok := f.get("client.id"); ok {
		s.ClientID = strings.TrimSpace(p.Value)
	}
	if p, ok := f.get("bootstrap.servers"); ok {
		for _, b := range strings.Split(p.Value, ",") {
			if b = strings.TrimSpace(b); b != "" {
				s.Bootstrap = append(s.Bootstrap, b)
			}
		}
	}
	s.sslFrom = firstMaterial(f)
	return s, nil
}

func unknownKey(file string, p Property) error {
	kind := "unknown"
	if strings.HasPrefix(p.Key, "ssl.") || strings.HasPrefix(p.Key, "sasl.") || strings.HasPrefix(p.Key, "security.") {
		kind = "unsupported"
	}
	return fmt.Errorf("%s:%d: %s key %s (koff reads security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.*, ssl.keystore.* as PEM, ssl.endpoint.identification.algorithm, ssl.enabled.protocols, client.id, bootstrap.servers)", file, p.Line, kind, p.Key)
}

// firstMaterial names the first key that gives TLS material, which is
// meaningless (and so a mistake) without TLS.
func firstMaterial(f propFile) string {
	var ps []Property
	for _, k := range []string{"ssl.truststore.location", "ssl.truststore.certificates", "ssl.keystore.location", "ssl.keystore.key", "ssl.keystore.certificate.chain"} {
		if p, ok := f.get(k); ok {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return ""
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Line < ps[j].Line })
	return f.from(ps[0])
}

func (s *Settings) readJAAS(f propFile, p Property) error {
	e, err := parseJAAS(p.Value)
	if err != nil {
		hint := ""
		if strings.Count(p.Value, `"`)%2 == 1 {
			// \" in a properties file is just ", so a JAAS escape must be written \\".
			hint = ` (in a properties file write \\" for a JAAS \")`
		}
		return f.errf(p, "%v%s", err, hint)
	}
	fam, ok := jaasModules[e.module]
	if !ok {
		return f.errf(p, "login module %s is not supported (use org.apache.kafka.common.security.plain.PlainLoginModule or org.apache.kafka.common.security.scram.ScramLoginModule)", e.module)
	}
	for k := range e.options {
		if k != "username" && k != "password" {
			return f.errf(p, "option %s is not supported (koff reads username and password)", k)
		}
	}
	s.jaasFamily, s.jaasFrom = fam, f.from(p)
	s.Username, s.Password = e.options["username"], Secret(e.options["password"])
	return nil
}

// storeType checks ssl.truststore.type / ssl.keystore.type: PEM only.
func storeType(f propFile, key, convert string) error {
	p, ok := f.get(key)
	if !ok {
		return nil
	}
	switch t := strings.ToUpper(strings.TrimSpace(p.Value)); t {
	case "PEM":
		return nil
	case "JKS", "PKCS12":
		return f.errf(p, "%s is not supported; convert it to PEM with: %s", t, convert)
	default:
		return f.errf(p, "%q is not a store type koff reads (PEM only)", p.Value)
	}
}

// readStoreFile reads a store location; without a type it must look like
// PEM (Kafka's default type is JKS, so say how to convert).
func readStoreFile(f propFile, p Property, convert string) ([]byte, error) {
	path := strings.TrimSpace(p.Value)
	data, err := readPEMFile(fmt.Sprintf("%s:%d: %s", f.name, p.Line, p.Key), path)
	if err != nil {
		return nil, err
	}
	if !isPEM(data) {
		return nil, f.errf(p, "%s is not PEM (a JKS or PKCS12 store?); convert it with: %s", path, convert)
	}
	return data, nil
}

func (s *Settings) readTruststore(f propFile) error {
	loc, hasLoc := f.get("ssl.truststore.location")
	file := "truststore.jks"
	if hasLoc {
		file = filepath.Base(strings.TrimSpace(loc.Value))
	}
	convert := fmt.Sprintf("keytool -exportcert -rfc -keystore %s -alias CARoot -file ca.pem (PKCS12: openssl pkcs12 -in %s -nokeys -out ca.pem), then ssl.truststore.type=PEM and ssl.truststore.location=ca.pem", file, file)
	if err := storeType(f, "ssl.truststore.type", convert); err != nil {
		return err
	}
	if p, ok := f.get("ssl.truststore.password"); ok && p.Value != "" {
		return f.errf(p, "not used with a PEM truststore; remove it")
	}
	inline, hasInline := f.get("ssl.truststore.certificates")
	switch {
	case hasLoc && hasInline:
		return f.errf(inline, "give either it or ssl.truststore.location, not both")
	case hasLoc:
		data, err := readStoreFile(f, loc, convert)
		if err != nil {
			return err
		}
		s.TrustPEM, s.trustFrom = data, f.from(loc)
	case hasInline:
		s.TrustPEM, s.trustFrom = []byte(inline.Value), f.from(inline)
	}
	return nil
}

func (s *Settings) readKeystore(f propFile) error {
	loc, hasLoc := f.get("ssl.keystore.location")
	file := "keystore.p12"
	if hasLoc {
		file = filepath.Base(strings.TrimSpace(loc.Value))
	}
	convert := fmt.Sprintf("openssl pkcs12 -in %s -nodes -out client.pem (JKS: keytool -importkeystore -srckeystore %s -destkeystore keystore.p12 -deststoretype PKCS12 first), then ssl.keystore.type=PEM and ssl.keystore.location=client.pem", file, file)
	if err := storeType(f, "ssl.keystore.type", convert); err != nil {
		return err
	}
	if p, ok := f.get("ssl.key.password"); ok && p.Value != "" {
		return f.errf(p, "%v", errEncryptedKey)
	}
	if p, ok := f.get("ssl.keystore.password"); ok && p.Value != "" {
		return f.errf(p, "not used with a PEM keystore; remove it (the key must be unencrypted)")
	}
	key, hasKey := f.get("ssl.keystore.key")
	chain, hasChain := f.get("ssl.keystore.certificate.chain")
	switch {
	case hasLoc && (hasKey || hasChain):
		return f.errf(loc, "give either it or ssl.keystore.key with ssl.keystore.certificate.chain, not both")
	case hasKey != hasChain:
		p := key
		if hasChain {
			p = chain
		}
		return f.errf(p, "needs both ssl.keystore.key and ssl.keystore.certificate.chain")
	case hasLoc:
		data, err := readStoreFile(f, loc, convert)
		if err != nil {
			return err
		}
		s.CertPEM, s.KeyPEM, s.certFrom = data, Secret(data), f.from(loc)
	case hasKey:
		s.CertPEM, s.KeyPEM, s.certFrom = []byte(chain.Value), Secret(key.Value), f.from(key)
	}
	return nil
}

func (s *Settings) readTLSOptions(f propFile) error {
	if p, ok := f.get("ssl.endpoint.identification.algorithm"); ok {
		switch strings.ToLower(strings.TrimSpace(p.Value)) {
		case "":
			s.NoHostnameCheck = true
		case "https":
		default:
			return f.errf(p, "%q is not https or empty (empty turns off the host name check)", p.Value)
		}
	}
	if p, ok := f.get("ssl.enabled.protocols"); ok {
		for _, v := range strings.Split(p.Value, ",") {
			ver, err := tlsVersion(strings.TrimSpace(v))
			if err != nil {
				return f.errf(p, "%v", err)
			}
			if s.MinTLS == 0 || ver < s.MinTLS {
				s.MinTLS = ver
			}
			s.MaxTLS = max(s.MaxTLS, ver)
		}
	}
	if p, ok := f.get("ssl.protocol"); ok {
		// Only names the protocol family in Java; Go negotiates the newest
		// version both sides (and ssl.enabled.protocols) allow.
		if v := strings.TrimSpace(p.Value); v != "TLS" {
			if _, err := tlsVersion(v); err != nil {
				return f.errf(p, "%v", err)
			}
		}
	}
	return nil
}

func tlsVersion(v string) (uint16, error) {
	switch v {
	case "TLSv1.2":
		return tls.VersionTLS12, nil
	case "TLSv1.3":
		return tls.VersionTLS13, nil
	}
	return 0, fmt.Errorf("%q is not supported (koff speaks TLSv1.2 and TLSv1.3)", v)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
