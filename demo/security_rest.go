package demo

import (
	"crypto/subtle"
	"crypto/tls"
	"io"
	"log"
	"net/http"
	"strings"
)

// restSecurity is the REST emulator's TLS (nil: plain HTTP) and the
// credentials it requires (nil: none).
type restSecurity struct {
	tls  *tls.Config
	auth *ConnectAuth
}

// unauthorized is what Connect's BasicAuthSecurityRestExtension
// (JaasBasicAuthFilter) answers a request without valid credentials: 401
// with this sentence as a plain-text body, not Connect's error JSON. The
// emulator answers the same, so koff's handling of it is what operators
// will see against a real worker.
const unauthorized = "User cannot access the resource."

// authorize wraps h: with ConnectAuth set, a request needs matching basic
// credentials or the bearer token.
func (s restSecurity) authorize(h http.Handler) http.Handler {
	if s.auth == nil || (s.auth.User == "" && s.auth.Token == "") {
		return h
	}
	a := *s.auth
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
