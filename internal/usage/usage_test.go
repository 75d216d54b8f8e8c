package usage

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClass(t *testing.T) {
	sentinel := New("null value")
	wrapped := fmt.Errorf("load x.parquet: column %q: %w", "answer", sentinel)
	assert.ErrorIs(t, wrapped, Err)
	assert.ErrorIs(t, wrapped, sentinel)
	assert.Equal(t, `load x.parquet: column "answer": null value`, wrapped.Error())

	plain := errors.New("disk full")
	assert.NotErrorIs(t, fmt.Errorf("write: %w", plain), Err)
	w := Wrap(plain)
	assert.ErrorIs(t, w, Err)
	assert.ErrorIs(t, w, plain)
	assert.Equal(t, "disk full", w.Error())
	assert.Nil(t, Wrap(nil))
	assert.Same(t, w, Wrap(w))
	assert.ErrorIs(t, Errorf("unknown task %q", "x"), Err)
	assert.NotErrorIs(t, errors.Join(plain), Err)
}
