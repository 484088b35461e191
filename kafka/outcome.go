package kafka

import (
	"errors"
	"net"

	kafkago "github.com/segmentio/kafka-go"
)

// RequestError is a write request (produce, offset commit) that failed,
// saying whether the request can have taken effect. A broker that answers
// with an error code has (with few exceptions) not appended; a request that
// could not be sent never reached it; but a connection that failed after
// the request was sent leaves the outcome open: the broker may have
// received it, and it handles a request whose connection is gone all the
// same (it only drops the answer), at a time nothing bounds.
type RequestError struct {
	msg        string
	err        error
	notApplied bool
}

func (e *RequestError) Error() string { return e.msg }
func (e *RequestError) Unwrap() error { return e.err }

// NotApplied: the broker provably did not apply the request.
func (e *RequestError) NotApplied() bool { return e.notApplied }

// produceNotApplied: the produce request was never sent, or the broker
// answered with an error that means it did not append. REQUEST_TIMED_OUT
// and NOT_ENOUGH_REPLICAS_AFTER_APPEND are answers to acks=all after the
// leader appended (replication was not confirmed in time), and a storage
// or unknown server error can come after the append: those stay open.
func produceNotApplied(err error) bool {
	var ke kafkago.Error
	if errors.As(err, &ke) {
		switch ke {
		case kafkago.RequestTimedOut, kafkago.NotEnoughReplicasAfterAppend, kafkago.KafkaStorageError, kafkago.Unknown:
			return false
		}
		return true
	}
	return notSent(err)
}

// commitNotApplied is the same rule for an offset commit: the coordinator
// appends the commit to __consumer_offsets, and reports a failed or timed
// out replication of that append as COORDINATOR_NOT_AVAILABLE (or
// REQUEST_TIMED_OUT, UNKNOWN_SERVER_ERROR); every other error code is a
// refusal before the append.
func commitNotApplied(err error) bool {
	var ke kafkago.Error
	if errors.As(err, &ke) {
		switch ke {
		case kafkago.GroupCoordinatorNotAvailable, kafkago.RequestTimedOut, kafkago.Unknown:
			return false
		}
		return true
	}
	return notSent(err)
}

// notSent: the connection could not be made, so no byte of the request
// went out.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
