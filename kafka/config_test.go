package kafka

import (
	"fmt"
	"strings"
	"testing"

	"koff/kafka/security"
)

// A Config shows its Security's set-up and never a secret: the dashboard
// header says "certificates NOT verified" from Insecure.
func TestConfigShowsSecurityNotSecrets(t *testing.T) {
	for _, insecure := range []bool{false, true} {
		sec := buildSecurity(t, security.Settings{Mechanism: "PLAIN", Username: "alice", Password: "s3cr3t-pw", Protocol: "SASL_SSL", InsecureSkipVerify: insecure})
		cfg := Config{Brokers: []string{"k:9092"}, Security: sec}
		if cfg.Insecure() != insecure {
			t.Errorf("InsecureSkipVerify %v: Config.Insecure = %v", insecure, cfg.Insecure())
		}
		for _, v := range []any{cfg, &cfg} {
			for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
				if out := fmt.Sprintf(verb, v); strings.Contains(out, "s3cr3t") {
					t.Errorf("%s of %T leaks: %s", verb, v, out)
				}
			}
		}
	}
}
