package eval

import (
	"bytes"
	"io"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for mpb's render goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestBarsLogWriterKeepsEveryLine(t *testing.T) {
	var out syncBuffer
	p := NewBars(&out)
	lw := p.(interface{ LogWriter() io.Writer }).LogWriter()

	_, err := io.WriteString(lw, "before bars\n")
	require.NoError(t, err)
	p.Start([]string{"cpu"}, 2)
	_, err = io.WriteString(lw, "while drawing\n")
	require.NoError(t, err)
	p.Done(0)
	p.Finish()
	_, err = io.WriteString(lw, "after bars\n")
	require.NoError(t, err)

	got := out.String()
	for _, line := range []string{"before bars", "while drawing", "after bars"} {
		assert.Contains(t, got, line)
	}
	assert.Less(t, bytes.Index([]byte(got), []byte("while drawing")), bytes.Index([]byte(got), []byte("after bars")))
}
