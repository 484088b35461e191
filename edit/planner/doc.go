// Package planner turns a request into a Plan (edit/plan) and writes
// nothing: it refuses names and partitions koff has never seen (with the
// closest ones), reads the current offsets, chooses the path and the
// offsets topic, judges new offsets against the shapes the connector
// wrote, and notes what the connector's class resumes from. The Planner
// reads through the ports the Editor hands it.
package planner
