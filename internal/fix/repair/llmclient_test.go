package repair

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// llmWait is how long a test waits for a request to the endpoint to end
// before it calls the client hung: longer than any timeout the tests give
// the client, so it can only run out when the client has no bound.
const llmWait = 2 * time.Minute

// llmAnswerTimeout is the client's request timeout where the endpoint
// answers at once: a loopback round trip of a few KiB or of the cap, far
// within it even on a loaded machine.
const llmAnswerTimeout = time.Minute

// llmSilentTimeout is the client's request timeout where the endpoint
// never answers: it fires however fast the machine is.
const llmSilentTimeout = time.Second

// TestLLMClientBounds asks endpoints for an answer (item 6 of #53: an
// endpoint that never answered stalled repair; a 300 MB answer cost 1.8 GB
// resident): one that never answers ends after the timeout with an error
// that says so, one that sends more than MaxLLMResponse (declared, or
// streamed without a length) is refused after at most that much, and a
// plain answer comes through.
func TestLLMClientBounds(t *testing.T) {
	answer := `{"choices":[{"message":{"role":"assistant","content":"PATCH"}}]}`
	huge := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices":[{"message":{"role":"assistant","content":"`)
		chunk := strings.Repeat("x", 64<<10)
		for i := 0; i < 300<<4; i++ { // 300 MiB, unless the client stops reading
			if _, err := fmt.Fprint(w, chunk); err != nil {
				return
			}
		}
	}
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request, stop <-chan struct{})
		want    string // the error; "" wants the answer
		silent  bool   // the endpoint never answers
	}{
		{"an answer", func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, answer)
		}, "", false},
		{"no answer", func(w http.ResponseWriter, r *http.Request, stop <-chan struct{}) { <-stop }, "no answer within 1s (FLAKY_LLM_TIMEOUT)", true},
		{"a huge answer without a length", func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) { huge(w) }, errLLMTooLarge.Error(), false},
		{"a huge answer with its length", func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			w.Header().Set("Content-Length", fmt.Sprint(300<<20))
			huge(w)
		}, errLLMTooLarge.Error(), false},
		{"a huge error", func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) {
			w.WriteHeader(http.StatusInternalServerError)
			huge(w)
		}, errLLMTooLarge.Error(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stop := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tt.handler(w, r, stop) }))
			defer srv.Close()
			defer close(stop)
			cfg := &LLMConfig{URL: srv.URL + "/v1", Model: "m", Timeout: llmAnswerTimeout}
			if tt.silent {
				cfg.Timeout = llmSilentTimeout
			}
			client := newLLMClient(cfg)
			var resp openai.ChatCompletionResponse
			var err error
			done := make(chan struct{})
			go func() {
				defer close(done)
				resp, err = client.CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m"})
			}()
			select {
			case <-done:
			case <-time.After(llmWait):
				t.Fatalf("no end of the request after %v", llmWait)
			}
			if tt.want == "" {
				if err != nil || len(resp.Choices) != 1 || resp.Choices[0].Message.Content != "PATCH" {
					t.Errorf("answer %+v, %v; want PATCH", resp, err)
				}
				return
			}
			if err == nil || !strings.Contains(endpointFailure(err, cfg), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestEndpointFailureNamesTheTimeout: a request that ran out of time says
// how long it had.
func TestEndpointFailureNamesTheTimeout(t *testing.T) {
	// The handler does not read the request, so the server does not see
	// the client go: stop ends it when the test is done.
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-stop }))
	defer srv.Close()
	defer close(stop)
	cfg := &LLMConfig{URL: srv.URL, Model: "m", Timeout: 100 * time.Millisecond}
	_, err := newLLMClient(cfg).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{Model: "m"})
	if got := endpointFailure(err, cfg); got != "no answer within 100ms (FLAKY_LLM_TIMEOUT)" {
		t.Errorf("endpointFailure(%v) = %q", err, got)
	}
	if got := endpointFailure(errors.New("connection refused"), cfg); got != "connection refused" {
		t.Errorf("endpointFailure of another error = %q", got)
	}
}

// TestWriteLLMLog: a log longer than maxLLMLog is cut there and says how
// much it left out; a shorter one is written whole.
func TestWriteLLMLog(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		text string
		want string
	}{
		{"short", "an answer", "an answer"},
		{"huge", strings.Repeat("x", maxLLMLog+5), strings.Repeat("x", maxLLMLog) + "\n[flaky: 5 more bytes left out of this log]\n"},
	} {
		path := filepath.Join(dir, tt.name)
		if err := writeLLMLog(path, tt.text); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != tt.want {
			t.Errorf("%s: logged %d bytes, want %d", tt.name, len(got), len(tt.want))
		}
	}
}
