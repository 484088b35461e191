package cli

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// runSecureDemo runs demo-cluster in-process with SASL_SSL, client
// certificates and a REST token, and returns its banner.
func runSecureDemo(t *testing.T, pw, tok, tlsDir string) string {
	t.Helper()
	return startDemoCluster(t, "--sasl", "SCRAM-SHA-512", "--sasl-user", testUser, "--sasl-password-file", pw,
		"--tls-dir", tlsDir, "--tls-client-auth", "--connect-token-file", tok)
}

// startDemoCluster runs demo-cluster in-process on free ports with flags
// added, until the test ends (it must exit 0 then), and returns its banner.
func startDemoCluster(t *testing.T, flags ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int)
	args := append([]string{"demo-cluster", "--kafka-listen", "127.0.0.1:0", "--connect-listen", "127.0.0.1:0", "--flush-interval", "500ms"}, flags...)
	go func() {
		done <- Main(args, Env{Context: ctx, Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("demo-cluster exit %d: %s", code, errb.String())
			}
		case <-time.After(15 * time.Second):
			t.Error("demo-cluster did not stop")
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "Press Ctrl+C") {
		if time.Now().After(deadline) {
			t.Fatalf("no banner: %s %s", out.String(), errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return out.String()
}

// bannerLine is the banner line that starts with prefix, without it.
func bannerLine(t *testing.T, banner, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(banner, "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "try:")); strings.HasPrefix(l, prefix) {
			return strings.TrimPrefix(l, prefix)
		}
	}
	t.Fatalf("no %q line in the banner:\n%s", prefix, banner)
	return ""
}

// The banner's own kcat and koff lines work against the secured demo:
// kcat proves the broker side is real SASL_SSL with client certificates;
// koff get reads through it and through the REST emulator (mTLS, token).
func TestSecureDemoClusterBanner(t *testing.T) {
	dir := t.TempDir()
	pw, tok := secFile(t, dir, "pw", testPassword+"\n"), secFile(t, dir, "tok", "t0ken-xyz\n")
	banner := runSecureDemo(t, pw, tok, dir+"/tls")
	if strings.Contains(banner, testPassword) || strings.Contains(banner, "t0ken-xyz") {
		t.Fatalf("the banner shows a secret:\n%s", banner)
	}
	for _, want := range []string{"(SASL_SSL, SCRAM-SHA-512 user alice, client certificates required)", "https://127.0.0.1:", "requires bearer token",
		"-X security.protocol=SASL_SSL -X sasl.mechanisms=SCRAM-SHA-512 -X sasl.username=alice -X sasl.password=\"$(cat " + pw + ")\" -X ssl.ca.location=" + dir + "/tls/ca.pem"} {
		if !strings.Contains(banner, want) {
			t.Errorf("banner lacks %q:\n%s", want, banner)
		}
	}

	t.Run("kcat", func(t *testing.T) {
		needTool(t, "kcat")
		line := "kcat " + bannerLine(t, banner, "kcat ")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "sh", "-c", line+" 2>&1").Output()
		if err != nil || !strings.Contains(string(out), `["jdbc-shop",`) {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	})

	args := strings.Fields(bannerLine(t, banner, "koff get "))
	t.Run("koff get with REST", func(t *testing.T) {
		out, errOut, code := koff(t, append([]string{"get", "--timeout", "20s"}, args...)...)
		if code != 0 || !strings.Contains(out, `"jdbc-shop"`) || !strings.Contains(out, `"s3-archive"`) {
			t.Fatalf("exit %d: %s\n%s", code, errOut, out)
		}
	})
	without := func(drop ...string) []string {
		var out []string
		for i := 0; i < len(args); i++ {
			if contains(drop, args[i]) {
				i++ // and its value
				continue
			}
			out = append(out, args[i])
		}
		return out
	}
	t.Run("REST without a client certificate", func(t *testing.T) {
		_, errOut, code := koff(t, append([]string{"get", "--timeout", "20s"}, without("--connect-cert", "--connect-key")...)...)
		if code != ExitFailed || !strings.Contains(errOut, "TLS: Kafka Connect requires a client certificate (give --connect-cert and --connect-key)") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
	t.Run("REST without the token", func(t *testing.T) {
		_, errOut, code := koff(t, append([]string{"get", "--timeout", "20s"}, without("--connect-token-file")...)...)
		if code != ExitFailed || !strings.Contains(errOut, "HTTP 401 Unauthorized: User cannot access the resource.") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	})
}
