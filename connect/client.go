// Package connect is a client for Kafka Connect's REST API: server info,
// connector status, config and topics, stop/pause/resume, and the KIP-875
// offsets endpoints (GET since Connect 3.5, PATCH and DELETE since 3.6).
//
// Every call is bounded by Config.Timeout. Errors that Connect itself
// returned are *Error, whose text is Connect's message word for word, so the
// UI and CLI can show exactly what an operator would see with curl. Failures
// to get any answer at all are *ReachError, one line naming the (redacted) URL.
// Offsets are kept as raw JSON bytes: they must survive get → edit → set
// byte for byte, and routinely exceed 2^53.
package connect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultTimeout bounds each call when Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// maxBody caps how much of a response is read. Offsets of a large connector
// run to a few MB at most; anything bigger is not Connect talking.
const maxBody = 16 << 20

// Config says how to reach a Kafka Connect cluster's REST API.
type Config struct {
	URL      string        // e.g. http://connect:8083 or https://user:pass@connect:8083 (userinfo = basic auth)
	User     string        // basic auth user (--connect-user); overrides URL userinfo
	Password string        // basic auth password (read by the caller from --connect-password-file)
	CAFile   string        // PEM CA bundle for https (custom CA); system roots otherwise
	Timeout  time.Duration // per call; DefaultTimeout when zero
	// Token is a bearer token (read by the caller from
	// --connect-token-file), sent as "Authorization: Bearer …". It and
	// basic auth exclude each other: a request carries one Authorization.
	Token string
	// CertFile and KeyFile are a PEM client certificate and its key, for
	// mTLS; KeyFile may be empty when CertFile holds the key too.
	CertFile, KeyFile string
}

// String describes the config without its secrets, so printing one (even
// with %+v) cannot leak a password or token.
func (c Config) String() string {
	s := "connect.Config{URL: " + redactURL(c.URL)
	if c.User != "" {
		s += ", User: " + c.User
	}
	if c.Password != "" {
		s += ", Password: [redacted]"
	}
	if c.Token != "" {
		s += ", Token: [redacted]"
	}
	if c.CAFile != "" {
		s += ", CAFile: " + c.CAFile
	}
	if c.CertFile != "" {
		s += ", CertFile: " + c.CertFile + ", KeyFile: " + c.KeyFile
	}
	return s + "}"
}

// GoString is String, for %#v.
func (c Config) GoString() string { return c.String() }

func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	if strings.Contains(raw, "@") {
		return "[unparsable URL with credentials]"
	}
	return raw
}

// Client talks to one Connect cluster. It is safe for concurrent use.
type Client struct {
	base     string // scheme://host[:port][/prefix], no userinfo, no trailing slash
	shown    string // what URL() returns: the configured URL, password redacted
	user     string
	password string
	hasAuth  bool
	token    string
	timeout  time.Duration
	http     *http.Client
}

// New validates cfg and builds a Client. It does not contact Connect.
func New(cfg Config) (*Client, error) {
	raw := strings.TrimSpace(cfg.URL)
	if raw == "" {
		return nil, errors.New("--connect-url: empty; want e.g. http://connect:8083")
	}
	if !strings.Contains(raw, "://") {
		// host:port alone: refused rather than guessed, since guessing http
		// for an https worker would send its credentials in the clear.
		if strings.Contains(raw, "@") {
			return nil, errors.New("--connect-url: no scheme; start it with http:// or https://")
		}
		return nil, fmt.Errorf("--connect-url: %s has no scheme; use http://%s or https://%s", raw, raw, raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		if strings.Contains(raw, "@") {
			// Any part of the text may be a piece of the password (a '#' or
			// '?' in it cuts the URL short), so quote none of it.
			return nil, errors.New("--connect-url: cannot parse it; percent-encode special characters in the user and password, or use --connect-user and --connect-password-file")
		}
		// url.Error repeats the whole URL; the cause alone is clearer.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("--connect-url: %v; want e.g. http://connect:8083", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		if u.Scheme == "" || u.Opaque != "" {
			return nil, errors.New("--connect-url: missing http:// or https://; want e.g. http://connect:8083")
		}
		return nil, fmt.Errorf("--connect-url: scheme %q is not http or https", u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("--connect-url: no host in %s", u.Redacted())
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		// Not quoted: an unencoded '?' or '#' in a password lands here.
		return nil, errors.New("--connect-url: must not have a query (?) or fragment (#); percent-encode them in a password")
	}

	c := &Client{timeout: cfg.Timeout}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if u.User != nil {
		c.user = u.User.Username()
		c.password, _ = u.User.Password()
	}
	// Flags win over the URL: a password file is how secrets stay out of ps(1).
	if cfg.User != "" {
		c.user, c.password = cfg.User, cfg.Password
	} else if cfg.Password != "" {
		c.password = cfg.Password
	}
	if c.password != "" && c.user == "" {
		return nil, errors.New("--connect-password-file: a password needs a user (--connect-user, or user@ in --connect-url)")
	}
	c.hasAuth = c.user != ""
	if c.token = strings.TrimSpace(cfg.Token); c.token != "" && c.hasAuth {
		return nil, errors.New("--connect-token-file: give a bearer token or basic auth (--connect-user, user@ in --connect-url), not both")
	}

	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	u.Fragment, u.RawFragment, u.RawQuery, u.ForceQuery = "", "", "", false
	c.shown = u.Redacted()
	u.User = nil
	c.base = u.String()

	tr, err := transport(u.Scheme, cfg)
	if err != nil {
		return nil, err
	}
	c.http = &http.Client{Transport: tr}
	return c, nil
}

// URL is the Connect URL with any password redacted: safe to show and log.
func (c *Client) URL() string { return c.shown }

// Timeout is the bound on each call.
func (c *Client) Timeout() time.Duration { return c.timeout }

// connectorPath is /connectors/{name}[/suffix] with the name path-escaped:
// names may hold spaces and other characters that must not reach the wire raw.
func connectorPath(name, suffix string) string {
	p := "/connectors/" + url.PathEscape(name)
	if suffix != "" {
		p += "/" + suffix
	}
	return p
}

// do sends one request and returns the response body of a 2xx answer.
// Anything else comes back as *Error (Connect answered) or *ReachError.
func (c *Client) do(parent context.Context, method, path string, body []byte) ([]byte, error) {
	return c.doWithin(parent, c.timeout, method, path, body)
}

// ModifyTimeout bounds an offsets PATCH or DELETE: Connect answers a
// request it could not finish within its REST request timeout (90 s,
// RestServer's default) with 500 "Request timed out", and altering the
// offsets of an exactly-once connector fences its tasks' producers and
// writes in a transaction, which takes longer than a status read. Giving
// up earlier leaves an edit the worker may still apply: unknown.
const ModifyTimeout = 95 * time.Second

func (c *Client) doWithin(parent context.Context, timeout time.Duration, method, path string, body []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()

	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "koff")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.hasAuth {
		req.SetBasicAuth(c.user, c.password)
	} else if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}

	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.reachError(parent, ctx, timeout, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, c.reachError(parent, ctx, timeout, err)
	}
	if len(data) > maxBody {
		return nil, fmt.Errorf("%s %s: response larger than %d MiB", method, path, maxBody>>20)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, responseError(method, path, resp, data)
	}
	return data, nil
}

// getJSON GETs path and decodes the body into v.
func (c *Client) getJSON(ctx context.Context, path string, v any) error {
	data, err := c.do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	return decode(http.MethodGet, path, data, v)
}

// decode unmarshals a success body; a proxy's login page or an HTML 200 ends
// here, so say plainly that the answer was not Connect's JSON.
func decode(method, path string, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s %s: answer is not Kafka Connect JSON (%v): %s", method, path, err, firstLine(data, 0))
	}
	return nil
}

// shapeError is a 2xx answer that is JSON but not what Connect sends for
// the call: an error at once, never a wait for fields that will not come.
func shapeError(method, path, want string, data []byte) error {
	return fmt.Errorf("%s %s: answer is not a Kafka Connect %s: %s", method, path, want, firstLine(data, 0))
}
