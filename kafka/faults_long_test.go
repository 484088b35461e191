//go:build long

package kafka

import "time"

// outage is how long the fault tests cut the broker off (build tag long).
const outage = 30 * time.Second
