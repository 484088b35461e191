package cli

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"koff/connect"
	"koff/demo"
	"koff/demo/rest"
)

// The REST emulator over TLS (custom CA) with basic auth and a bearer
// token, through koff's Connect client.
func TestRESTAuthAndTLS(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := demo.Start(ctx, demo.Options{
		ConnectListen: "127.0.0.1:0", TLSDir: filepath.Join(dir, "tls"),
		ConnectAuth: &rest.ConnectAuth{User: "ops", Password: testPassword, Token: "t0ken-xyz"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	url, ca := c.ConnectURL(), c.TLS().CA
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("REST URL %s is not https", url)
	}
	call := func(cfg connect.Config) error {
		cl, err := connect.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = cl.Connectors(ctx)
		return err
	}
	for name, cfg := range map[string]connect.Config{
		"basic auth":            {URL: url, CAFile: ca, User: "ops", Password: testPassword},
		"basic auth in the URL": {URL: strings.Replace(url, "https://", "https://ops:"+testPassword+"@", 1), CAFile: ca},
		"bearer token":          {URL: url, CAFile: ca, Token: "t0ken-xyz\n"},
	} {
		if err := call(cfg); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, cfg := range map[string]connect.Config{
		"no credentials": {URL: url, CAFile: ca},
		"wrong password": {URL: url, CAFile: ca, User: "ops", Password: "nope"},
		"wrong token":    {URL: url, CAFile: ca, Token: "t0ken-abc"},
	} {
		err := call(cfg)
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Status != 401 || !strings.HasSuffix(ce.Error(), ": HTTP 401 Unauthorized: User cannot access the resource.") {
			t.Errorf("%s: %v, want Connect's 401", name, err)
		}
	}
	err = call(connect.Config{URL: url, Token: "t0ken-xyz"}) // the system's roots
	if err == nil || !strings.Contains(err.Error(), "TLS certificate signed by unknown authority (give Kafka Connect's CA bundle with --connect-ca)") {
		t.Errorf("without the CA: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "t0ken") {
		t.Errorf("error shows the token: %v", err)
	}
	if _, err := connect.New(connect.Config{URL: url, User: "ops", Password: "x", Token: "t"}); err == nil {
		t.Error("basic auth and a token together are accepted")
	}
}
