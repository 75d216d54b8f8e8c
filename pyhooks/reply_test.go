package pyhooks

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadReply(t *testing.T) {
	read := func(s string) ([]string, error) {
		out, err := readReply(bufio.NewReader(bytes.NewBufferString(s)), 7)
		return texts(out), err
	}
	got, err := read("{\"id\": 7, \"ok\": true, \"n\": 2}\n[1, NaN]\n\"x\"\n")
	require.NoError(t, err)
	assert.Equal(t, []string{"[1, NaN]", `"x"`}, got)

	_, err = read(`{"id": 7, "ok": false, "error": {"type": "KeyError", "message": "'a'", "traceback": "tb", "index": 3}}` + "\n")
	var he *HookError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 3, *he.Index)

	for _, bad := range []string{
		"", "garbage\n", `{"id": 8, "ok": true, "n": 0}` + "\n", `{"id": 7, "ok": true, "n": -1}` + "\n",
		`{"id": 7, "ok": true, "n": 99999999999}` + "\n", `{"id": 7, "ok": false}` + "\n",
		`{"id": 7, "ok": true, "n": 2}` + "\n1\n", // the interpreter died mid-reply
	} {
		_, err := read(bad)
		assert.Error(t, err, "%q", bad)
	}
	_, err = read(`{"id": 7, "ok": true, "n": 1}` + "\n1")
	assert.True(t, errors.Is(err, io.ErrUnexpectedEOF), "an item without its newline")
}

// Whatever an interpreter writes, reading it returns values or an error:
// never a panic, never more items than announced.
func FuzzReadReply(f *testing.F) {
	for _, s := range []string{"{\"id\": 1, \"ok\": true, \"n\": 1}\n\"a\"\n", "{\"id\": 1, \"ok\": false, \"error\": {}}\n", "{\"id\": 1}\n", "\n\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := readReply(bufio.NewReader(bytes.NewReader(b)), 1)
		if err == nil && len(out) > bytes.Count(b, []byte{'\n'}) {
			t.Fatalf("%d items from %d lines", len(out), bytes.Count(b, []byte{'\n'}))
		}
	})
}
