package cli

import (
	"strings"
	"time"

	"koff/model"
)

// Every time the command line reads goes through readTime, and every one
// it echoes through timeEcho: model.ParseTime's one rule (no zone is UTC,
// as koff prints UTC), the instant said back in UTC and the reader's zone.

// readerZone is the zone of the person at the terminal: TZ as the
// command's environment gives it (as the C library reads it), else the
// machine's.
func readerZone(env Env) *time.Location {
	tz := strings.TrimPrefix(env.Getenv("TZ"), ":")
	if tz == "" {
		return time.Local
	}
	if loc, err := time.LoadLocation(tz); err == nil {
		return loc
	}
	return time.Local
}

// readTime reads flag's time; a bad one is a usage error (exit 2) in one
// line.
func readTime(flag, s string, now time.Time, env Env) (time.Time, error) {
	t, err := model.ParseTime(s, now, readerZone(env))
	if err != nil {
		return time.Time{}, usagef("%s: %v", flag, err)
	}
	return t, nil
}

// timeEcho is the instant koff understood, in UTC and the reader's zone.
func timeEcho(t time.Time, env Env) string {
	return model.TimeEcho(t, time.Now(), readerZone(env))
}
