package resume

import (
	"sort"
	"strconv"
	"strings"
)

// gtidRange is the transactions lo..hi of one MySQL GTID source.
type gtidRange struct{ lo, hi int64 }

// gtidSet is a MySQL GTID set: each source (uuid, or uuid:tag) with its
// ranges, sorted and disjoint.
type gtidSet map[string][]gtidRange

// mysqlGTIDs reads a MySQL GTID set ("uuid:1-5:7,uuid2:1-3", MySQL 8.4's
// "uuid:tag:1-5" too); what it cannot read it leaves out.
func mysqlGTIDs(s string) gtidSet {
	set := gtidSet{}
	for _, part := range strings.Split(s, ",") {
		fields := strings.Split(strings.TrimSpace(part), ":")
		if len(fields) < 2 || fields[0] == "" {
			continue
		}
		source := strings.ToLower(fields[0])
		for _, f := range fields[1:] {
			lo, hi, isRange := strings.Cut(f, "-")
			a, err := strconv.ParseInt(lo, 10, 64)
			if err != nil {
				source = strings.ToLower(fields[0]) + ":" + strings.ToLower(f) // a tag
				continue
			}
			b := a
			if isRange {
				if b, err = strconv.ParseInt(hi, 10, 64); err != nil || b < a {
					continue
				}
			}
			set[source] = append(set[source], gtidRange{a, b})
		}
	}
	for k, rs := range set {
		set[k] = normalize(rs)
	}
	return set
}

func normalize(rs []gtidRange) []gtidRange {
	sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
	var out []gtidRange
	for _, r := range rs {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// minus is the transactions of s that are not in t.
func (s gtidSet) minus(t gtidSet) gtidSet {
	out := gtidSet{}
	for k, rs := range s {
		for _, r := range rs {
			rest := []gtidRange{r}
			for _, cut := range t[k] {
				var next []gtidRange
				for _, x := range rest {
					if cut.hi < x.lo || cut.lo > x.hi {
						next = append(next, x)
						continue
					}
					if x.lo < cut.lo {
						next = append(next, gtidRange{x.lo, cut.lo - 1})
					}
					if x.hi > cut.hi {
						next = append(next, gtidRange{cut.hi + 1, x.hi})
					}
				}
				rest = next
			}
			out[k] = append(out[k], rest...)
		}
	}
	return out
}

// count is the number of transactions in s.
func (s gtidSet) count() int64 {
	var n int64
	for _, rs := range s {
		for _, r := range rs {
			n += r.hi - r.lo + 1
		}
	}
	return n
}

// mariaGTIDs reads a MariaDB GTID position ("0-1-100,1-2-7": domain,
// server, sequence) as each domain's highest sequence number.
func mariaGTIDs(s string) map[uint32]int64 {
	pos := map[uint32]int64{}
	for _, part := range strings.Split(s, ",") {
		f := strings.Split(strings.TrimSpace(part), "-")
		if len(f) != 3 {
			continue
		}
		d, err1 := strconv.ParseUint(f[0], 10, 32)
		seq, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		if cur, ok := pos[uint32(d)]; !ok || seq > cur {
			pos[uint32(d)] = seq
		}
	}
	return pos
}
