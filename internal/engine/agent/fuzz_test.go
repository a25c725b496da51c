package agent

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
)

// FuzzReadMessage feeds arbitrary bytes to the frame reader and decoder: they
// must never panic, never return a frame above the limit, and a message they
// decode must encode and decode to the same value.
func FuzzReadMessage(f *testing.F) {
	frame := func(s string) []byte {
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
	}
	for _, seed := range [][]byte{
		frame(`{"type":"hello","protocol":1,"token":"t","pid":1}`),
		frame(`{"type":"test-end","test":"a.B#c","index":0,"outcome":"pass","timeMs":3}`),
		frame(`{"type":"unknown","x":1}`),
		frame(`{"type":"test-start","test":"a.B#c","index":"x"}`),
		frame(`[]`), frame(`{}`), frame("\xff"),
		binary.BigEndian.AppendUint32(nil, MaxFrameSize+1),
		binary.BigEndian.AppendUint32(nil, 0),
		{0, 0},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		for {
			payload, err := readFrame(r, MaxHelloSize)
			if err != nil {
				return // a bad or truncated frame ends the connection
			}
			if len(payload) == 0 || len(payload) > MaxHelloSize {
				t.Fatalf("frame of %d bytes accepted", len(payload))
			}
			m, err := Decode(payload)
			if err != nil || m == nil {
				continue
			}
			enc, err := Encode(m)
			if err != nil {
				t.Fatalf("encode %#v: %v", m, err)
			}
			again, err := Decode(enc)
			if err != nil || !reflect.DeepEqual(again, m) {
				t.Fatalf("round trip of %s: %#v, %v; want %#v", enc, again, err, m)
			}
		}
	})
}
