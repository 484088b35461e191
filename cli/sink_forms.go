package cli

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"koff/model"
)

// The kafka-consumer-groups --reset-offsets forms koff takes for a sink,
// read with ConsumerGroupCommand's rules, so the same arguments pick the
// same offsets.

// javaDuration is java.time.Duration.parse's text form (PnDTnHnMn.nS),
// which --by-duration takes: PT1H, P1DT12H, PT0.5S, -PT10M.
var javaDuration = regexp.MustCompile(`(?i)^([-+]?)P(?:([-+]?[0-9]+)D)?(T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$`)

// parseJavaDuration reads --by-duration as Duration.parse does.
func parseJavaDuration(s string) (time.Duration, error) {
	m := javaDuration.FindStringSubmatch(s)
	bad := fmt.Errorf("%q is not a duration like PT1H or P1DT12H (java.time.Duration: PnDTnHnMn.nS)", s)
	if m == nil || m[3] == "T" || m[2] == "" && m[3] == "" {
		return 0, bad
	}
	var total float64
	for i, unit := range map[int]time.Duration{2: 24 * time.Hour, 4: time.Hour, 5: time.Minute, 6: time.Second} {
		if m[i] == "" {
			continue
		}
		n, err := strconv.ParseInt(m[i], 10, 64)
		if err != nil {
			return 0, bad
		}
		total += float64(n) * float64(unit)
	}
	if m[7] != "" {
		frac, _ := strconv.ParseFloat("0."+m[7], 64)
		if strings.HasPrefix(m[6], "-") {
			frac = -frac
		}
		total += frac * float64(time.Second)
	}
	if m[1] == "-" {
		total = -total
	}
	if math.Abs(total) > float64(math.MaxInt64) {
		return 0, fmt.Errorf("%q is too long a duration", s)
	}
	return time.Duration(total), nil
}

// topicArgs splits --topic values as kafka-consumer-groups does: "t" is
// a topic, "t:0,2" partitions 0 and 2 of t.
func topicArgs(args []string) (topics []string, parts []model.TopicPartition, err error) {
	for _, a := range args {
		if !strings.Contains(a, ":") {
			topics = append(topics, a)
			continue
		}
		f := strings.Split(a, ":")
		if len(f) != 2 || f[0] == "" {
			return nil, nil, usagef("--topic: invalid topic arg '%s', expected topic name and partitions (t:0,1)", a)
		}
		for _, p := range strings.Split(f[1], ",") {
			n, err := strconv.ParseInt(p, 10, 32)
			if err != nil || n < 0 {
				return nil, nil, usagef("--topic: invalid partition '%s' specified in topic arg '%s'", p, a)
			}
			parts = append(parts, model.TopicPartition{Topic: f[0], Partition: int(n)})
		}
	}
	return topics, parts, nil
}

// resetFile reads kafka-consumer-groups' reset plan CSV (--export of a
// --dry-run): "topic,partition,offset" lines, or
// "group,topic,partition,offset" lines, which must name one group.
func resetFile(path string) (group string, offsets map[model.TopicPartition]int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("--from-file: %v", err)
	}
	r := csv.NewReader(strings.NewReader(string(b)))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return "", nil, fmt.Errorf("--from-file %s: %v", path, err)
	}
	offsets = map[model.TopicPartition]int64{}
	for i, row := range rows {
		bad := func(what string) error {
			return fmt.Errorf("--from-file %s line %d: %s (want topic,partition,offset or group,topic,partition,offset)", path, i+1, what)
		}
		switch len(row) {
		case 3:
		case 4:
			if group != "" && row[0] != group {
				return "", nil, bad(fmt.Sprintf("groups %s and %s: koff edits one sink's group at a time", group, row[0]))
			}
			group, row = row[0], row[1:]
		default:
			return "", nil, bad(fmt.Sprintf("%d fields", len(row)))
		}
		if len(offsets) > 0 && (group == "") != (len(rows[0]) == 3) {
			return "", nil, bad("lines with and without a group")
		}
		p, err := strconv.ParseInt(row[1], 10, 32)
		if err != nil || p < 0 {
			return "", nil, bad(fmt.Sprintf("partition %q is not a number", row[1]))
		}
		off, err := strconv.ParseInt(row[2], 10, 64)
		if err != nil {
			return "", nil, bad(fmt.Sprintf("offset %q is not a number", row[2]))
		}
		if off < 0 {
			return "", nil, bad(fmt.Sprintf("offset %d is negative", off))
		}
		offsets[model.TopicPartition{Topic: row[0], Partition: int(p)}] = off
	}
	if len(offsets) == 0 {
		return "", nil, fmt.Errorf("--from-file %s: no offsets", path)
	}
	return group, offsets, nil
}
