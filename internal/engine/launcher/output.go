package launcher

import (
	"fmt"
	"sync"
)

// headTail keeps the first and the last half of a byte stream's limit and
// counts what it drops in between. It is safe for concurrent writers.
type headTail struct {
	mu      sync.Mutex
	half    int
	head    []byte
	tail    []byte
	dropped int64
}

func newHeadTail(limit int) *headTail {
	return &headTail{half: max(limit/2, 1)}
}

// Write implements io.Writer; it never fails.
func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	if room := h.half - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	h.tail = append(h.tail, p...)
	if over := len(h.tail) - h.half; over > 0 {
		h.dropped += int64(over)
		if len(h.tail) > 2*h.half {
			h.tail = append(h.tail[:0:0], h.tail[over:]...)
		} else {
			h.tail = h.tail[over:]
		}
	}
	return n, nil
}

// String returns the kept output with a marker where bytes were dropped.
func (h *headTail) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dropped == 0 {
		return string(h.head) + string(h.tail)
	}
	return fmt.Sprintf("%s\n[... %d bytes of output omitted ...]\n%s", h.head, h.dropped, h.tail)
}
