//go:build cudasim

package cudasim

import (
	"context"
	"math"
	"os"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

var (
	checksOnce sync.Once
	checksMod  *Module
	checksErr  error
)

// checks loads testdata/checks.cu once per test binary.
func checks(t *testing.T) *Module {
	t.Helper()
	checksOnce.Do(func() {
		src, err := os.ReadFile("testdata/checks.cu")
		if err != nil {
			checksErr = err
			return
		}
		lib, _, err := Build(context.Background(), map[string][]byte{"checks.cu": src}, CacheDir())
		if err != nil {
			checksErr = err
			return
		}
		checksMod, checksErr = Load(lib)
		if checksErr == nil {
			checksMod.SetWorkers(2)
		}
	})
	require.NoError(t, checksErr)
	return checksMod
}

// buf is device memory of n float32 (or other 4-byte) values with a Go view.
type buf struct {
	p unsafe.Pointer
	n int
}

func newBuf[T any](t *testing.T, m *Module, n int) ([]T, uint64) {
	t.Helper()
	var zero T
	p, err := m.Alloc(int64(n)*int64(unsafe.Sizeof(zero)), t.Name())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, m.Free(p)) })
	return unsafe.Slice((*T)(p), n), uint64(uintptr(p))
}

func f32(v float32) uint64 { return uint64(math.Float32bits(v)) }

func TestLaunchComputes(t *testing.T) {
	m := checks(t)
	in, pin := newBuf[float32](t, m, 100)
	out, pout := newBuf[float32](t, m, 100)
	for i := range in {
		in[i] = float32(i)
	}
	require.NoError(t, m.Launch("add_one", 4, 1, 32, 0, []uint64{pin, pout, 100}))
	for i := range out {
		require.Equal(t, float32(i+1), out[i])
	}

	rin, prin := newBuf[float32](t, m, 256)
	rout, prout := newBuf[float32](t, m, 256)
	for i := range rin {
		rin[i] = float32(i)
	}
	require.NoError(t, m.Launch("reverse_block", 1, 1, 256, 0, []uint64{prin, prout, 1}))
	for i := range rout {
		require.Equal(t, float32(255-i), rout[i])
	}

	win, pwin := newBuf[float32](t, m, 64)
	sum, psum := newBuf[float32](t, m, 64)
	bc, pbc := newBuf[float32](t, m, 64)
	for i := range win {
		win[i] = float32(i)
	}
	require.NoError(t, m.Launch("warp_ops", 1, 1, 64, 0, []uint64{pwin, psum, pbc, 5}))
	for i := range sum {
		w := i / 32 * 32
		require.Equal(t, float32(32*w+496), sum[i], "lane %d", i)
		require.Equal(t, float32(w+5), bc[i], "lane %d", i)
	}

	const rows, n = 6, 1000
	din, pdin := newBuf[float64](t, m, rows*n)
	dout, pdout := newBuf[float64](t, m, rows)
	for i := range din {
		din[i] = float64(i % 7)
	}
	require.NoError(t, m.Launch("block_sums", 3, 2, 96, 0, []uint64{pdin, pdout, n}))
	for r := 0; r < rows; r++ {
		var want float64
		for i := 0; i < n; i++ {
			want += din[r*n+i]
		}
		require.Equal(t, want, dout[r], "row %d", r)
	}
}

func TestBF16RoundsToNearestEven(t *testing.T) {
	m := checks(t)
	cases := []struct {
		in   float32
		bits uint16
	}{
		{1, 0x3f80},
		{math.Float32frombits(0x3f808000), 0x3f80}, // halfway, even below
		{math.Float32frombits(0x3f818000), 0x3f82}, // halfway, even above
		{math.Float32frombits(0x3f808001), 0x3f81}, // just above halfway
		{-2.5, 0xc020},
		{float32(math.Inf(1)), 0x7f80},
		{math.Float32frombits(0x7f7fffff), 0x7f80}, // max float rounds to inf
		{math.Float32frombits(0x00000001), 0x0000}, // subnormal
	}
	in, pin := newBuf[float32](t, m, len(cases)+1)
	out, pout := newBuf[uint16](t, m, len(cases)+1)
	back, pback := newBuf[float32](t, m, len(cases)+1)
	for i, c := range cases {
		in[i] = c.in
	}
	in[len(cases)] = float32(math.NaN())
	require.NoError(t, m.Launch("bf16_round", 1, 1, 32, 0, []uint64{pin, pout, pback, uint64(len(cases) + 1)}))
	for i, c := range cases {
		require.Equal(t, c.bits, out[i], "%g", c.in)
		require.Equal(t, math.Float32frombits(uint32(c.bits)<<16), back[i])
	}
	require.True(t, math.IsNaN(float64(back[len(cases)])))
}

// Each defect is reported with the kernel, the block and thread, and what went wrong.
func TestDefectsAreReported(t *testing.T) {
	m := checks(t)
	in, pin := newBuf[float32](t, m, 256)
	_, pout := newBuf[float32](t, m, 256)
	_ = in
	for _, tc := range []struct {
		name                   string
		kernel                 string
		grid, gridY, block, sm int
		args                   []uint64
		want                   []string
	}{
		{"global write past the allocation", "unchecked_write", 2, 1, 256, 0, []uint64{pout, 1},
			[]string{"unchecked_write block (1,0) thread 0", "write of 4 bytes", "is 0 bytes past the end of TestDefectsAreReported", "checks.cu:"}},
		{"missing barrier", "reverse_block", 1, 1, 64, 0, []uint64{pin, pout, 0},
			[]string{"reverse_block block (0,0) thread 0 at checks.cu:18: read of __shared__ reverse_block::s+252, which this block never wrote",
				"shared-memory race: overwrites __shared__ reverse_block::s+128, which thread 31 read with no barrier between", "read-after-write 32"}},
		{"warp-divergent shuffle", "divergent_shuffle", 1, 1, 32, 0, []uint64{pout},
			[]string{"deadlock", "shuffle at checks.cu:"}},
		{"barrier skipped by exited threads", "divergent_barrier", 1, 1, 64, 0, []uint64{pout},
			[]string{"__syncthreads at checks.cu:", "reached by 32 of 64 threads"}},
		{"dynamic shared memory beyond the launch's size", "dynamic_fill", 1, 1, 64, 1024, []uint64{pout, 5},
			[]string{"dynamic_fill block (0,0) thread 51", "write of 4 bytes at dynamic shared offset 1024, beyond the launch's 1024 bytes"}},
		{"misaligned vector load", "vector_load", 1, 1, 32, 0, []uint64{pin, pout, 1},
			[]string{"misaligned 16-byte read"}},
		{"uninitialised shared memory", "uninitialised_shared", 1, 1, 64, 0, []uint64{pout},
			[]string{"read of __shared__ uninitialised_shared::s+0, which this block never wrote"}},
		{"block above __launch_bounds__", "reverse_block", 1, 1, 512, 0, []uint64{pin, pout, 1},
			[]string{"block of 512 threads; the kernel allows 1..256"}},
		{"4-byte parameter packed with high bits", "add_one", 1, 1, 32, 0, []uint64{pin, pout, 1 << 40},
			[]string{"parameter 2 is 4 bytes"}},
		{"pointer that is not device memory", "add_one", 1, 1, 32, 0, []uint64{pin, 12345, 1},
			[]string{"parameter 1 (a pointer) is 0x3039, not device memory"}},
		{"parameter count", "add_one", 1, 1, 32, 0, []uint64{pin, pout},
			[]string{"add_one takes 3 parameters, the launch packed 2"}},
		{"dynamic shared memory above 48 KiB", "dynamic_fill", 1, 1, 32, 49153, []uint64{pout, 1},
			[]string{"above the 48 KiB limit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := m.Launch(tc.kernel, tc.grid, tc.gridY, tc.block, tc.sm, tc.args)
			require.Error(t, err)
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
			t.Log(err)
		})
	}
	// The same kernels with correct launches pass.
	require.NoError(t, m.Launch("dynamic_fill", 1, 1, 64, 1280, []uint64{pout, 5}))
	require.NoError(t, m.Launch("vector_load", 1, 1, 32, 0, []uint64{pin, pout, 4}))
	require.NoError(t, m.Launch("unchecked_write", 1, 1, 256, 0, []uint64{pout, 1}))
}

func TestKernelInfo(t *testing.T) {
	m := checks(t)
	kinds, maxThreads, ok := m.KernelInfo("block_sums")
	require.True(t, ok)
	require.Equal(t, "ppl", kinds)
	require.Equal(t, 1024, maxThreads)
	kinds, maxThreads, ok = m.KernelInfo("reverse_block")
	require.True(t, ok)
	require.Equal(t, "ppi", kinds)
	require.Equal(t, 256, maxThreads)
	_, _, ok = m.KernelInfo("nope")
	require.False(t, ok)
}
