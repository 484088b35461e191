package rest

import (
	"crypto/subtle"
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"strings"
)

// Security is the emulator's TLS (nil: plain HTTP) and the
// credentials it requires (nil: none).
type Security struct {
	TLS  *tls.Config
	Auth *ConnectAuth
}

// unauthorized is what Connect's BasicAuthSecurityRestExtension
// (JaasBasicAuthFilter) answers a request without valid credentials: 401
// with this sentence as a plain-text body, not Connect's error JSON. The
// emulator answers the same, so koff's handling of it is what operators
// will see against a real worker.
const unauthorized = "User cannot access the resource."

// authorize wraps h: with ConnectAuth set, a request needs matching basic
// credentials or the bearer token.
func (s Security) authorize(h http.Handler) http.Handler {
	if s.Auth == nil || (s.Auth.User == "" && s.Auth.Token == "") {
		return h
	}
	a := *s.Auth
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.allows(r) {
			if a.User != "" {
				w.Header().Set("WWW-Authenticate", `Basic realm="connect"`)
			}
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, unauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (a ConnectAuth) allows(r *http.Request) bool {
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	switch strings.ToLower(scheme) {
	case "basic":
		u, p, ok := r.BasicAuth()
		return ok && a.User != "" && same(u, a.User) && same(p, a.Password)
	case "bearer":
		return a.Token != "" && same(strings.TrimSpace(cred), a.Token)
	}
	return false
}

// same compares in constant time, so timing tells nothing about a secret.
func same(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// serverLog sends net/http's own messages (a client's failed TLS
// handshake) to Logf: the package never writes to stderr itself.
func serverLog(logf func(string, ...any)) *log.Logger {
	return log.New(logfWriter(logf), "connect REST: ", 0)
}

type logfWriter func(string, ...any)

func (f logfWriter) Write(p []byte) (int, error) {
	f("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// ConnectAuth are the credentials the Connect REST emulator requires:
// HTTP basic auth (User and Password) and/or a bearer Token. Either one
// given is accepted; a request with neither gets Connect's 401.
type ConnectAuth struct {
	User, Password string
	Token          string
}

// String leaves the secrets out.
func (a ConnectAuth) String() string {
	var parts []string
	if a.User != "" {
		parts = append(parts, "basic auth user "+a.User)
	}
	if a.Token != "" {
		parts = append(parts, "bearer token")
	}
	return strings.Join(parts, " or ")
}
