// Package kafka is everything koff says to Kafka, through kafka-go: client
// configuration, the offsets-topic Tailer, and (later) the lag poller and
// writers. It feeds model types and never imports the UI.
package kafka
