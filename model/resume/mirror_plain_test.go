package resume

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The plain form's parse gives what decoding gives, value and error, on
// random partitions and offsets in and out of the plain form: escapes,
// other field orders, whitespace, signs, leading zeros, numbers past 2^63
// or with fractions, non-ASCII text, trailing bytes.
func TestMirrorPlainParseEqualsDecoding(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	texts := []string{"primary", "orders.eu-1", "b", "", `a\"b`, `a\u0041`, "héllo", "a b", "x\x01y", `a\\`, "t-" + fmt.Sprint(r.IntN(1000))}
	nums := []string{"0", "7", "42", "-1", "-0", "007", "1.5", "1e3", "9223372036854775807", "922337203685477580", "99999999999999999999", "-42", " 3", "null", `"3"`}
	pick := func(xs []string) string {
		if r.IntN(3) > 0 { // mostly the plain form's own
			return xs[r.IntN(3)]
		}
		return xs[r.IntN(len(xs))]
	}
	plain := 0
	for range 20000 {
		cluster, topic, num, off := pick(texts), pick(texts), pick(nums), pick(nums)
		var partition string
		switch r.IntN(6) {
		case 0:
			partition = fmt.Sprintf(`{"topic":"%s","cluster":"%s","partition":%s}`, topic, cluster, num)
		case 1:
			partition = fmt.Sprintf(`{"cluster": "%s","partition":%s,"topic":"%s"}`, cluster, num, topic)
		case 2:
			partition = fmt.Sprintf(`{"cluster":"%s","partition":%s,"topic":"%s"}x`, cluster, num, topic)
		default:
			partition = fmt.Sprintf(`{"cluster":"%s","partition":%s,"topic":"%s"}`, cluster, num, topic)
		}
		var offset string
		switch r.IntN(5) {
		case 0:
			offset = fmt.Sprintf(`{"offset": %s}`, off)
		case 1:
			offset = `{}`
		default:
			offset = fmt.Sprintf(`{"offset":%s}`, off)
		}
		got, gotErr := ParseMirrorOffset(partition, offset)
		want, wantErr := parseMirrorDecoded(partition, offset)
		if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s %s: plain %+v %v, decoded %+v %v", partition, offset, got, gotErr, want, wantErr)
		}
		if _, ok := mirrorPlain(partition, offset); ok {
			plain++
		}
	}
	if plain < 2000 {
		t.Errorf("only %d of the inputs took the plain form's path", plain)
	}
}

func BenchmarkParseMirrorOffset(b *testing.B) {
	const p, o = `{"cluster":"primary","partition":41,"topic":"orders.region-3.topic-12"}`, `{"offset":123456789}`
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := ParseMirrorOffset(p, o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decoded", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := parseMirrorDecoded(p, o); err != nil {
				b.Fatal(err)
			}
		}
	})
}
