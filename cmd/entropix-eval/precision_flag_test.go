package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// --matmul-precision reaches the engine on forward and generate: bf16 gives other
// logits than fp32 (the activations are rounded), and a bad value is a usage error
// naming the flag.
func TestMatmulPrecisionFlag(t *testing.T) {
	model := builderModel(t)
	args := []string{"--model", model, "--ids", "1,2,3,4,5"}
	fp32, err := runCmd(t, forwardCmd, args...)
	require.NoError(t, err)
	def, err := runCmd(t, forwardCmd, append(args, "--matmul-precision", "fp32")...)
	require.NoError(t, err)
	require.Equal(t, fp32, def)
	bf16, err := runCmd(t, forwardCmd, append(args, "--matmul-precision", "bf16")...)
	require.NoError(t, err)
	require.NotEqual(t, fp32, bf16)

	_, err = runCmd(t, generateCmd, append(args, "--max-new-tokens", "3", "--matmul-precision", "bf16")...)
	require.NoError(t, err)
	for _, cmd := range []string{"forward", "generate"} {
		run := forwardCmd
		if cmd == "generate" {
			run = generateCmd
		}
		_, err = runCmd(t, run, append(args, "--matmul-precision", "fp16")...)
		require.ErrorContains(t, err, `matmul-precision: matmul precision "fp16": want fp32 or bf16`, cmd)
	}
}
