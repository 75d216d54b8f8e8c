package eval

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProgressRenderings(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(buf *bytes.Buffer) Progress
		want []string
	}{
		{"log lines", func(buf *bytes.Buffer) Progress {
			return NewLogLines(slog.New(slog.NewTextHandler(buf, nil)), 0)
		}, []string{"msg=progress", "done=88", "total=88", "tok_per_s="}},
		{"bars", func(buf *bytes.Buffer) Progress { return NewBars(buf) },
			[]string{"worker 0 cpu:0", "worker 1 cpu:1", "total", "tok/s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			r := fakeRun{devices: []string{"cpu:0", "cpu:1"}}.runner(t.TempDir())
			r.Progress = tc.make(&buf)
			_, err := r.Run(context.Background())
			require.NoError(t, err)
			for _, w := range tc.want {
				assert.Contains(t, buf.String(), w)
			}
			if tc.name == "log lines" {
				assert.GreaterOrEqual(t, strings.Count(buf.String(), "msg=progress"), 2, "one line per finished item at interval 0, plus the last")
			}
		})
	}
}
