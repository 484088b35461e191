//go:build !long

package kafka

import "time"

// outage is how long the fault tests cut the broker off; `go test -tags
// long` runs 30 s outages.
const outage = 4 * time.Second
