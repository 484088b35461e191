// Package history reads what an offsets topic retains: each key's commits
// (Reading, spooled and put in time order), the partition histories the
// dashboards share (Share), and the rewind planned from a read (RewindRead,
// Rewind). A rewind's Plan goes through edit/apply as every edit's.
package history
