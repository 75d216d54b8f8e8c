package cuda

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCublasCandidates(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	toolkit := func(root string) []string {
		var out []string
		for _, dir := range []string{"lib64", "targets/x86_64-linux/lib"} {
			for _, v := range []string{"13", "12", "11"} {
				out = append(out, root+"/"+dir+"/libcublas.so."+v)
			}
		}
		return out
	}
	sonames := []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"}

	require.Equal(t, append(sonames, toolkit("/usr/local/cuda")...), cublasCandidates(env(nil)))

	got := cublasCandidates(env(map[string]string{
		"ENTROPIX_CUBLAS": "/opt/wheel/nvidia/cu13/lib/libcublas.so.13",
		"CUDA_HOME":       "/usr/local/cuda-13.0",
		"CUDA_PATH":       "/usr/local/cuda", // the default again: listed once
	}))
	want := append([]string{"/opt/wheel/nvidia/cu13/lib/libcublas.so.13"}, sonames...)
	want = append(want, toolkit("/usr/local/cuda-13.0")...)
	require.Equal(t, append(want, toolkit("/usr/local/cuda")...), got)
}
