package eval

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// The matmul precision changes results, so resuming a run in another precision is
// refused naming the field, and the two runs' fingerprints differ; fp32, the
// default, hashes as a run written before the option existed ("").
func TestResumeRefusesAPrecisionChange(t *testing.T) {
	dir := t.TempDir()
	fp32 := fakeRun{}.runner(dir)
	m, err := fp32.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, "fp32", m.Config.MatmulPrecision)

	bf16 := fakeRun{}.runner(dir)
	bf16.Config.MatmulPrecision = "bf16"
	_, err = bf16.Run(context.Background())
	require.ErrorContains(t, err, `matmul_precision: "fp32" → "bf16"`)

	other := fakeRun{}.runner(t.TempDir())
	other.Config.MatmulPrecision = "bf16"
	mb, err := other.Run(context.Background())
	require.NoError(t, err)
	require.NotEqual(t, m.Fingerprint, mb.Fingerprint)

	old := *m
	old.Config.MatmulPrecision = ""
	fo, err := fingerprint(&old)
	require.NoError(t, err)
	require.Equal(t, m.Fingerprint, fo)
	require.Empty(t, fingerprintDiff(&old, m))
}

func TestConfigRejectsUnknownPrecision(t *testing.T) {
	c := Config{Model: "m", Task: "t", Out: "o", MatmulPrecision: "fp16"}.WithDefaults()
	require.ErrorContains(t, c.Validate(), `matmul_precision: "fp16": want fp32 or bf16`)
}
