package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTable(t *testing.T) {
	got := table([][]string{
		{"case (tok/s)", "ours", "llama.cpp", "ratio"},
		{"decode batch 1", tokS(85.52), tokS(46.5), ratio(85.52, 46.5)},
	})
	want := "" +
		"|case (tok/s)  |ours|llama.cpp|ratio|\n" +
		"|--------------|---:|--------:|----:|\n" +
		"|decode batch 1|85.5|     46.5|1.84×|\n"
	assert.Equal(t, want, got)
}
