package eval

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// namedEngine is a fake engine that names its device, as the CUDA engine does.
type namedEngine struct{ *fakeEngine }

func (namedEngine) DeviceName() string { return "NVIDIA Fake 80GB" }

// A run records the backend, its compute dtype and the devices' own names; resuming
// it on another backend is refused with a message naming both backends, because the
// numbers differ (BF16 on the GPU, F32 on the CPU), and the fingerprint differs too
// so shards of the two cannot be merged.
func TestResumeRefusesABackendChange(t *testing.T) {
	dir := t.TempDir()
	gpu := fakeRun{devices: []string{"cuda:0"}}.runner(dir)
	gpu.Config.Backend, gpu.Provenance.DType = "cuda", "BF16"
	open := gpu.OpenEngine
	gpu.OpenEngine = func(ctx context.Context, w int, d string) (Engine, func() error, error) {
		e, c, err := open(ctx, w, d)
		return namedEngine{e.(*fakeEngine)}, c, err
	}
	m, err := gpu.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, "cuda", m.Backend)
	require.Equal(t, "BF16", m.Provenance.DType)
	require.Equal(t, []string{"NVIDIA Fake 80GB"}, m.DeviceNames)

	cpu := fakeRun{}.runner(dir)
	cpu.Config.Backend = "cpu"
	_, err = cpu.Run(context.Background())
	require.ErrorContains(t, err, "was run on backend cuda (BF16 compute), this run uses backend cpu (F32)")

	other := fakeRun{}.runner(t.TempDir())
	mc, err := other.Run(context.Background())
	require.NoError(t, err)
	require.Nil(t, mc.DeviceNames)
	require.NotEqual(t, m.Fingerprint, mc.Fingerprint)
}
