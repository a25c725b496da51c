package repair

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/flakyhq/flaky/internal/base/saferead"
)

// DefaultLLMTimeout bounds one request to the endpoint, the answer's
// generation included: a local model on a CPU writes a few methods in a
// minute or two.
const DefaultLLMTimeout = 5 * time.Minute

// MaxLLMResponse bounds the body of one answer of the endpoint: an answer
// is a few methods, some KiB, wrapped in a little JSON.
const MaxLLMResponse = 1 << 20

// maxLLMLog bounds each prompt and answer logged under
// target/flaky/repair/llm.
const maxLLMLog = 1 << 20

// newLLMClient is the client of cfg's endpoint: each request ends after
// cfg.Timeout (DefaultLLMTimeout when 0), and an answer larger than
// MaxLLMResponse is an error after at most that many bytes were read.
func newLLMClient(cfg *LLMConfig) *openai.Client {
	cc := openai.DefaultConfig(cfg.APIKey)
	cc.BaseURL = strings.TrimSuffix(cfg.URL, "/")
	cc.HTTPClient = &http.Client{
		Timeout:   llmTimeout(cfg),
		Transport: cappedTransport{base: http.DefaultTransport, max: MaxLLMResponse},
	}
	return openai.NewClientWithConfig(cc)
}

// llmTimeout is the time one request to cfg's endpoint may take.
func llmTimeout(cfg *LLMConfig) time.Duration {
	if cfg.Timeout > 0 {
		return cfg.Timeout
	}
	return DefaultLLMTimeout
}

// errLLMTooLarge is the error of an answer larger than MaxLLMResponse.
var errLLMTooLarge = fmt.Errorf("the answer is larger than the %s flaky reads from the endpoint", saferead.Size(MaxLLMResponse))

// cappedTransport refuses response bodies larger than max bytes: one that
// says so in its Content-Length at once, any other once it has sent more.
type cappedTransport struct {
	base http.RoundTripper
	max  int64
}

// RoundTrip sends req through the base transport and caps the response's body.
func (t cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.max {
		resp.Body.Close()
		return nil, errLLMTooLarge
	}
	resp.Body = &cappedBody{rc: resp.Body, left: t.max}
	return resp, nil
}

// cappedBody reads at most left more bytes of rc and fails when rc holds
// more.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

// Read reads from the body, failing with errLLMTooLarge past the cap.
func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left == 0 {
		var one [1]byte
		if n, err := b.rc.Read(one[:]); n > 0 {
			return 0, errLLMTooLarge
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

// Close closes the body.
func (b *cappedBody) Close() error { return b.rc.Close() }

// endpointFailure says why a request to the endpoint failed, naming the
// timeout when it ran out.
func endpointFailure(err error, cfg *LLMConfig) string {
	var timeout interface{ Timeout() bool }
	if errors.As(err, &timeout) && timeout.Timeout() {
		return fmt.Sprintf("no answer within %v (FLAKY_LLM_TIMEOUT)", llmTimeout(cfg))
	}
	return err.Error()
}

// writeLLMLog writes a prompt or an answer to path, cut to maxLLMLog bytes
// with a line that says how much was left out.
func writeLLMLog(path, text string) error {
	if len(text) > maxLLMLog {
		text = fmt.Sprintf("%s\n[flaky: %d more bytes left out of this log]\n", strings.ToValidUTF8(text[:maxLLMLog], ""), len(text)-maxLLMLog)
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
