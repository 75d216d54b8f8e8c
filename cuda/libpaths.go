package cuda

import "path/filepath"

// cublasMajors are the cuBLAS major versions whose GemmEx entry points the backend
// calls (unchanged since CUDA 11), newest first.
var cublasMajors = []string{"13", "12", "11"}

// cublasCandidates lists the libraries openCublas tries, in order: ENTROPIX_CUBLAS
// (a path) when set; each soname through the loader's own search (LD_LIBRARY_PATH,
// the ldconfig cache); then each toolkit's library folders, since a CUDA toolkit
// often sits outside the loader's path: $CUDA_HOME, $CUDA_PATH and /usr/local/cuda,
// each in lib64 and targets/x86_64-linux/lib (where CUDA 12 and 13 keep the files
// lib64 links to). PyTorch's wheels bring one too (site-packages/nvidia/cu13/lib or
// nvidia/cublas/lib): set ENTROPIX_CUBLAS or LD_LIBRARY_PATH to it.
func cublasCandidates(getenv func(string) string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	add(getenv("ENTROPIX_CUBLAS"))
	for _, v := range cublasMajors {
		add("libcublas.so." + v)
	}
	for _, root := range []string{getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"} {
		if root == "" {
			continue
		}
		for _, dir := range []string{"lib64", "targets/x86_64-linux/lib"} {
			for _, v := range cublasMajors {
				add(filepath.Join(root, dir, "libcublas.so."+v))
			}
		}
	}
	return out
}
