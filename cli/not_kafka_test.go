package cli

import (
	"net"
	"strings"
	"testing"
)

// listen serves each connection with serve, until the test ends.
func listen(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			go serve(c)
		}
	}()
	return ln.Addr().String()
}

// Class 21.7: -b pointed at a port that is not Kafka's says what was
// found there, not only "i/o timeout": an SSH server's banner, or a
// server (an HTTP one waiting for its request line) that answers nothing.
func TestANonKafkaPortSaysWhatWasFound(t *testing.T) {
	ssh := listen(t, func(c net.Conn) { c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n")) })
	_, errs, code := koff(t, "get", "-b", ssh)
	if code != ExitFailed || !strings.Contains(errs, `answered "SSH-2.0-OpenSSH_9.6": not a Kafka broker?`) || strings.Count(errs, "\n") != 1 {
		t.Errorf("an SSH port: exit %d %q", code, errs)
	}
	silent := listen(t, func(net.Conn) {})
	_, errs, code = koff(t, "get", "-b", silent)
	if code != ExitFailed || !strings.Contains(errs, "accepted the connection but sent nothing back to Kafka's first request (ApiVersions): not a Kafka broker?") || strings.Contains(errs, "i/o timeout") {
		t.Errorf("a silent port: exit %d %q", code, errs)
	}
}
