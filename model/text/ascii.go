package text

import "encoding/binary"

// PrintableASCII reports whether every byte of p is printable ASCII
// (0x20–0x7e): JSONSafe, Sanitize and SanitizeOutput leave such bytes as
// they are. It reads 32 bytes a step, so that the guards cost little on
// the output of a million partitions, which is nearly always all
// printable.
func PrintableASCII[T ~string | ~[]byte](p T) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	// unprintable has the high bit of a byte set where w has a byte of 0x80
	// or more, below 0x20 or DEL (and maybe others when it has one: only
	// whether any is set counts).
	unprintable := func(w uint64) uint64 {
		del := w ^ 0x7f*ones
		return w | (w-0x20*ones)&^w | (del-ones)&^del
	}
	i := 0
	for ; i+32 <= len(p); i += 32 {
		b := []byte(p[i : i+32])
		if (unprintable(binary.LittleEndian.Uint64(b))|unprintable(binary.LittleEndian.Uint64(b[8:]))|
			unprintable(binary.LittleEndian.Uint64(b[16:]))|unprintable(binary.LittleEndian.Uint64(b[24:])))&highs != 0 {
			return false
		}
	}
	for ; i+8 <= len(p); i += 8 {
		if unprintable(binary.LittleEndian.Uint64([]byte(p[i:i+8])))&highs != 0 {
			return false
		}
	}
	for ; i < len(p); i++ {
		if p[i] < 0x20 || p[i] >= 0x7f {
			return false
		}
	}
	return true
}
