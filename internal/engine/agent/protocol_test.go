package agent

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func frame(payload string) []byte {
	b := make([]byte, 4+len(payload))
	binary.BigEndian.PutUint32(b, uint32(len(payload)))
	copy(b[4:], payload)
	return b
}

func header(n uint32) []byte {
	b := make([]byte, 4)
	binary.BigEndian.PutUint32(b, n)
	return b
}

func TestReadFrame(t *testing.T) {
	tests := []struct {
		name    string
		input   []byte
		want    []string
		wantErr error // checked with errors.Is on the error after the frames
	}{
		{name: "clean end", input: nil, wantErr: io.EOF},
		{name: "one frame", input: frame(`{"type":"log"}`), want: []string{`{"type":"log"}`}, wantErr: io.EOF},
		{name: "two frames", input: append(frame(`{"a":1}`), frame(`{"b":2}`)...), want: []string{`{"a":1}`, `{"b":2}`}, wantErr: io.EOF},
		{name: "partial header", input: []byte{0, 0}, wantErr: io.ErrUnexpectedEOF},
		{name: "truncated payload", input: append(header(10), "abc"...), wantErr: io.ErrUnexpectedEOF},
		{name: "header only", input: header(3), wantErr: io.ErrUnexpectedEOF},
		{name: "empty frame", input: header(0), wantErr: ErrEmptyFrame},
		{name: "oversized frame", input: header(MaxFrameSize + 1), wantErr: ErrFrameTooLarge},
		{name: "max uint32", input: header(0xFFFFFFFF), wantErr: ErrFrameTooLarge},
		{name: "utf-8 payload", input: frame(`{"m":"héllo ✓"}`), want: []string{`{"m":"héllo ✓"}`}, wantErr: io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bytes.NewReader(tt.input)
			var got []string
			var err error
			for {
				var p []byte
				p, err = ReadFrame(r)
				if err != nil {
					break
				}
				got = append(got, string(p))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("frames = %q, want %q", got, tt.want)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestReadFrameMaxSize(t *testing.T) {
	payload := bytes.Repeat([]byte("x"), MaxFrameSize)
	var buf bytes.Buffer
	if err := WriteFrame(&buf, payload); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFrame(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != MaxFrameSize {
		t.Errorf("len = %d, want %d", len(got), MaxFrameSize)
	}
}

func TestWriteFrameLimits(t *testing.T) {
	tests := []struct {
		name    string
		size    int
		wantErr error
	}{
		{"empty", 0, ErrEmptyFrame},
		{"one byte", 1, nil},
		{"too large", MaxFrameSize + 1, ErrFrameTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WriteFrame(&buf, make([]byte, tt.size))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && buf.Len() != 4+tt.size {
				t.Errorf("wrote %d bytes, want %d", buf.Len(), 4+tt.size)
			}
			if err != nil && buf.Len() != 0 {
				t.Errorf("wrote %d bytes on error", buf.Len())
			}
		})
	}
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    Message
		wantErr string
	}{
		{
			name:    "hello",
			payload: `{"type":"hello","protocol":1,"token":"t","pid":42,"javaVersion":"17.0.15","agentVersion":"0.1"}`,
			want:    &Hello{Protocol: 1, Token: "t", PID: 42, JavaVersion: "17.0.15", AgentVersion: "0.1"},
		},
		{
			name:    "test-end with unknown member",
			payload: `{"type":"test-end","test":"p.C#m","index":3,"outcome":"fail","timeMs":12,"failureType":"java.lang.AssertionError","message":"boom","stack":"at x","extra":{"a":[1]}}`,
			want:    &TestEnd{Test: "p.C#m", Index: 3, Outcome: "fail", TimeMs: 12, FailureType: "java.lang.AssertionError", Message: "boom", Stack: "at x"},
		},
		{
			name:    "tests",
			payload: `{"type":"tests","tests":[{"id":"p.C#m","class":"p.C","method":"m","engine":"jupiter"}]}`,
			want:    &Tests{Tests: []TestDescriptor{{ID: "p.C#m", Class: "p.C", Method: "m", Engine: "jupiter"}}},
		},
		{name: "run-start", payload: `{"type":"run-start","count":2}`, want: &RunStart{Count: 2}},
		{name: "class-start", payload: `{"type":"class-start","class":"p.C"}`, want: &ClassStart{Class: "p.C"}},
		{name: "class-end", payload: `{"type":"class-end","class":"p.C"}`, want: &ClassEnd{Class: "p.C"}},
		{name: "test-start", payload: `{"type":"test-start","test":"p.C#m","index":0}`, want: &TestStart{Test: "p.C#m"}},
		{name: "class-error", payload: `{"type":"class-error","class":"p.C","failureType":"E","message":"m","stack":"s"}`, want: &ClassError{Class: "p.C", FailureType: "E", Message: "m", Stack: "s"}},
		{name: "run-end", payload: `{"type":"run-end","count":2}`, want: &RunEnd{Count: 2}},
		{name: "exit", payload: `{"type":"exit","status":3,"test":"p.C#m","class":"p.C","stack":"at System.exit"}`, want: &Exit{Status: 3, Test: "p.C#m", Class: "p.C", Stack: "at System.exit"}},
		{name: "log", payload: `{"type":"log","level":"warn","message":"hi"}`, want: &Log{Level: "warn", Message: "hi"}},
		{
			name:    "perturbation",
			payload: `{"type":"perturbation","test":"f.DiceTest#rolls","strategy":"RANDOM_MAX","group":"RANDOM","api":"java.util.Random#nextInt(int)","class":"f.Dice","method":"roll","file":"Dice.java","line":12}`,
			want:    &Perturbation{Test: "f.DiceTest#rolls", Strategy: "RANDOM_MAX", Group: "RANDOM", API: "java.util.Random#nextInt(int)", Class: "f.Dice", Method: "roll", File: "Dice.java", Line: 12},
		},
		{name: "welcome", payload: `{"type":"welcome","protocol":1}`, want: &Welcome{Protocol: 1}},
		{name: "reject", payload: `{"type":"reject","reason":"no"}`, want: &Reject{Reason: "no"}},
		{name: "unknown type ignored", payload: `{"type":"restore-static","field":"x"}`, want: nil},
		{name: "no type", payload: `{"test":"x"}`, wantErr: `no "type" member`},
		{name: "type not a string", payload: `{"type":7}`, wantErr: "decode message"},
		{name: "not json", payload: `hello`, wantErr: "decode message"},
		{name: "not an object", payload: `[1,2]`, wantErr: "decode message"},
		{name: "bad member type", payload: `{"type":"run-start","count":"x"}`, wantErr: "decode run-start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.payload))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	msgs := []Message{
		&Welcome{Protocol: 1},
		&Reject{Reason: "unknown token"},
		&TestEnd{Test: "p.C#m[1]", Index: 2, Outcome: "pass", TimeMs: 5},
		&Exit{Status: 1},
	}
	for _, m := range msgs {
		t.Run(m.MessageType(), func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteMessage(&buf, m); err != nil {
				t.Fatal(err)
			}
			raw := buf.Bytes()[4:]
			var fields map[string]any
			if err := json.Unmarshal(raw, &fields); err != nil {
				t.Fatal(err)
			}
			if fields["type"] != m.MessageType() {
				t.Errorf("type = %v, want %s", fields["type"], m.MessageType())
			}
			got, err := ReadMessage(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, m) {
				t.Errorf("round trip = %#v, want %#v", got, m)
			}
		})
	}
}
