package resume

import "strconv"

// The plain form of a stored MirrorMaker 2 partition and offset, as
// MirrorSourceTask's maps read compact (and as koff's Store renders
// them): {"cluster":"A","partition":N,"topic":"T"} and {"offset":N}, the
// strings printable ASCII without escapes, the numbers plain integers.
// The resume check parses a million of them when a connector's offsets
// change; JSON decoding took 4 s of them. Anything else is decoded.

// mirrorPlain is ParseMirrorOffset of partition and offset in the plain
// form; false when either is not, for the decoder.
func mirrorPlain(partition, offset string) (MirrorOffset, bool) {
	m := MirrorOffset{Partition: partition, Offset: -1}
	rest, ok := cut(partition, `{"cluster":"`)
	if !ok {
		return m, false
	}
	if m.Cluster, rest, ok = plainString(rest); !ok {
		return m, false
	}
	if rest, ok = cut(rest, `,"partition":`); !ok {
		return m, false
	}
	var num int64
	if num, rest, ok = plainInt(rest, false); !ok {
		return m, false
	}
	m.Num = int(num)
	if rest, ok = cut(rest, `,"topic":"`); !ok {
		return m, false
	}
	if m.Topic, rest, ok = plainString(rest); !ok || rest != "}" || m.Topic == "" {
		return m, false
	}
	if rest, ok = cut(offset, `{"offset":`); !ok {
		return m, false
	}
	if m.Offset, rest, ok = plainInt(rest, true); !ok || rest != "}" {
		return m, false
	}
	return m, true
}

func cut(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || s[:len(prefix)] != prefix {
		return s, false
	}
	return s[len(prefix):], true
}

// plainString is the text up to the closing quote, when every byte of it
// is printable ASCII other than a backslash.
func plainString(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return s[:i], s[i+1:], true
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", s, false
		}
	}
	return "", s, false
}

// plainInt is an integer of at most 18 digits, without leading zeros (a
// minus sign when signed), and what follows it.
func plainInt(s string, signed bool) (int64, string, bool) {
	i := 0
	if signed && i < len(s) && s[i] == '-' {
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i || j-i > 18 || s[i] == '0' && j-i > 1 {
		return 0, s, false
	}
	n, err := strconv.ParseInt(s[:j], 10, 64)
	if err != nil || s[:j] == "-0" {
		return 0, s, false
	}
	return n, s[j:], true
}
