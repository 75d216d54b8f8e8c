package rundir

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSamplerList(t *testing.T) {
	specs, err := ParseSamplerList("greedy, min_p,entropix")
	require.NoError(t, err)
	assert.Equal(t, []SamplerSpec{{Name: "greedy"}, {Name: "min_p"}, {Name: "entropix"}}, specs)
	specs, err = ParseSamplerList("greedy,min_p,min_p=0.05,temperature=1.5,entropix:frog,label=frog")
	require.NoError(t, err)
	assert.Equal(t, []SamplerSpec{
		{Name: "greedy"},
		{Name: "min_p", Params: map[string]any{"min_p": 0.05, "temperature": 1.5}},
		{Name: "entropix:frog", Label: "frog"},
	}, specs)
	for in, want := range map[string]string{
		"greedy,,min_p":         "empty entry",
		"temperature=1":         "before any sampler name",
		"min_p,min_p=1,min_p=2": "given twice",
	} {
		_, err = ParseSamplerList(in)
		assert.ErrorContains(t, err, want, in)
	}
}
