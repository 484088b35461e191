package connect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Offsets keep every byte: big integers, field order, whitespace inside a
// value, null offsets.
func TestOffsetsByteExact(t *testing.T) {
	const (
		p1   = `{"z":"last","a":1,"server":"db1"}`
		o1   = `{"lsn":9223372036854775807,"txId":18446744073709551615,"ts_usec":1.0E20}`
		p2   = `{ "kafka_topic" : "t", "kafka_partition" : 0 }`
		o2   = `null`
		body = `{"offsets":[{"partition":` + p1 + `,"offset":` + o1 + `},` + "\n" +
			`  {"offset": ` + o2 + `, "partition":` + p2 + `}]}`
	)
	f := newFake()
	f.connectors["dbz"] = &fakeConnector{typ: "source", state: StateStopped, offsets: body}
	c := mustNew(t, Config{URL: f.start(t).URL})
	ctx := context.Background()

	raw, err := c.RawOffsets(ctx, "dbz")
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != body {
		t.Errorf("RawOffsets changed the body:\n%s\nwant\n%s", raw, body)
	}

	got, err := c.Offsets(ctx, "dbz")
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{p1, o1}, {p2, o2}}
	if len(got.Offsets) != len(want) {
		t.Fatalf("got %d offsets", len(got.Offsets))
	}
	for i, w := range want {
		if string(got.Offsets[i].Partition) != w[0] || string(got.Offsets[i].Offset) != w[1] {
			t.Errorf("offset %d = %s / %s\nwant %s / %s", i, got.Offsets[i].Partition, got.Offsets[i].Offset, w[0], w[1])
		}
	}

	empty := newFake()
	empty.connectors["s"] = &fakeConnector{typ: "sink", offsets: `{"offsets":[]}`}
	c = mustNew(t, Config{URL: empty.start(t).URL})
	got, err = c.Offsets(ctx, "s")
	if err != nil || len(got.Offsets) != 0 {
		t.Errorf("empty: %+v, %v", got, err)
	}
}

func TestAlterAndReset(t *testing.T) {
	f := newFake()
	c := mustNew(t, Config{URL: f.start(t).URL})
	ctx := context.Background()

	body := []byte(`{"offsets":[` +
		`{"partition":{"kafka_topic":"t","kafka_partition":0},"offset":{"kafka_offset":18446744073709551615}},` + "\n" +
		`{"partition":{"kafka_topic":"t","kafka_partition":1},"offset":null}]}`)
	msg, err := c.AlterOffsets(ctx, "my sink", body)
	if err != nil {
		t.Fatal(err)
	}
	if msg != msgAltered {
		t.Errorf("message %q", msg)
	}
	method, uri, accept, ctype, sent := f.last()
	if method != "PATCH" || uri != "/connectors/my%20sink/offsets" || ctype != "application/json" || accept != "application/json" {
		t.Errorf("sent %s %s (Content-Type %q, Accept %q)", method, uri, ctype, accept)
	}
	if string(sent) != string(body) {
		t.Errorf("body changed on the way:\n%s\nwant\n%s", sent, body)
	}

	msg, err = c.ResetOffsets(ctx, "my sink")
	if err != nil || msg != msgReset {
		t.Errorf("reset: %q, %v", msg, err)
	}
	if method, uri, _, _, sent = f.last(); method != "DELETE" || uri != "/connectors/my%20sink/offsets" || len(sent) != 0 {
		t.Errorf("reset sent %s %s %q", method, uri, sent)
	}

	_, err = c.AlterOffsets(ctx, "my sink", []byte(`{"offsets":[`))
	if err == nil || err.Error() != "PATCH /connectors/my%20sink/offsets: the offsets body is not valid JSON" {
		t.Errorf("invalid body: err = %v", err)
	}
}

// Source-connector body errors are 500s carrying Jackson's text; they must
// still come through as Connect's message.
func TestAlter500(t *testing.T) {
	const msg = "Offsets may only contain primitive types as values, but field nested contains MAP"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, 500, msg)
	}))
	defer srv.Close()
	c := mustNew(t, Config{URL: srv.URL})
	_, err := c.AlterOffsets(context.Background(), "src", []byte(`{"offsets":[{"partition":{"a":1},"offset":{"nested":{}}}]}`))
	if err == nil || err.Error() != "Connect REST: 500 "+msg {
		t.Errorf("err = %v", err)
	}
}
