package cudasim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"
)

//go:embed csrc/*.h csrc/*.cc
var csrc embed.FS

// Flags of the two kinds of translation unit. Kernel code keeps its 16-byte vector
// loads whole (-fno-tree-sra) so alignment is checked as the GPU would, and carries
// the ThreadSanitizer hooks; the runtime is plain C++.
var (
	kernelFlags  = []string{"-std=c++17", "-O2", "-g1", "-fPIC", "-fvisibility=hidden", "-fno-tree-sra", "-fsanitize=thread", "-fno-exceptions", "-w"}
	runtimeFlags = []string{"-std=c++17", "-O2", "-g1", "-fPIC", "-fvisibility=hidden", "-Wall"}
	linkFlags    = []string{"-shared", "-Wl,-Bsymbolic", "-Wl,-z,defs", "-lpthread", "-ldl", "-lm"}
)

// Compiler is the C++ compiler Build runs: $CXX, else g++.
func Compiler() string {
	if c := os.Getenv("CXX"); c != "" {
		return c
	}
	return "g++"
}

// Build compiles sources (file name → text: the .cu files and the headers they
// include) into a shared library under cacheDir and returns its path and the units it
// holds. Equal inputs (sources, runtime, compiler, flags) reuse an earlier build.
func Build(ctx context.Context, sources map[string][]byte, cacheDir string) (string, []Unit, error) {
	var units []Unit
	names := make([]string, 0, len(sources))
	for n := range sources {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.HasSuffix(n, ".cu") {
			u, err := Scan(n, sources[n])
			if err != nil {
				return "", nil, err
			}
			units = append(units, u)
		}
	}
	if len(units) == 0 {
		return "", nil, fmt.Errorf("cudasim: no .cu file among %v", names)
	}
	wraps, err := wrappers(units)
	if err != nil {
		return "", nil, fmt.Errorf("cudasim: %w", err)
	}
	files := map[string][]byte{}
	for n, b := range sources {
		if filepath.Base(n) != n {
			return "", nil, fmt.Errorf("cudasim: source %q: a plain file name expected", n)
		}
		files[n] = b
	}
	for n, s := range wraps {
		files[n] = []byte(s)
	}
	entries, _ := csrc.ReadDir("csrc")
	for _, e := range entries {
		b, _ := csrc.ReadFile("csrc/" + e.Name())
		if strings.HasSuffix(e.Name(), ".h") {
			files["inc/"+e.Name()] = b
		} else {
			files[e.Name()] = b
		}
	}
	cxx := Compiler()
	ver, err := exec.CommandContext(ctx, cxx, "--version").Output()
	if err != nil {
		return "", nil, fmt.Errorf("cudasim: C++ compiler %s: %w (install g++, or set CXX)", cxx, err)
	}
	key := buildKey(files, cxx, ver)
	final := filepath.Join(cacheDir, key)
	lib := filepath.Join(final, "kernels.so")
	if _, err := os.Stat(lib); err == nil {
		return lib, units, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", nil, fmt.Errorf("cudasim: %w", err)
	}
	dir, err := os.MkdirTemp(cacheDir, key+".tmp")
	if err != nil {
		return "", nil, fmt.Errorf("cudasim: %w", err)
	}
	defer os.RemoveAll(dir)
	for n, b := range files {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", nil, fmt.Errorf("cudasim: %w", err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return "", nil, fmt.Errorf("cudasim: %w", err)
		}
	}
	// Objects are cached on their own inputs: a broken copy of one kernel file
	// recompiles that file only.
	objDir := filepath.Join(cacheDir, "obj")
	if err := os.MkdirAll(objDir, 0o755); err != nil {
		return "", nil, fmt.Errorf("cudasim: %w", err)
	}
	var shared []string // what every kernel unit may include: headers, not other .cu files
	for n := range files {
		if !strings.HasSuffix(n, ".cu") && !strings.HasSuffix(n, ".cc") {
			shared = append(shared, n)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.NumCPU())
	var objs []string
	add := func(src string, flags []string, inputs []string) {
		obj := filepath.Join(objDir, objectKey(files, inputs, cxx, ver, flags)+".o")
		objs = append(objs, obj)
		if _, err := os.Stat(obj); err == nil {
			return
		}
		g.Go(func() error {
			tmp := strings.TrimSuffix(src, ".cc") + ".o"
			if err := compile(gctx, dir, cxx, flags, src, tmp); err != nil {
				return err
			}
			if err := os.Rename(filepath.Join(dir, tmp), obj); err != nil {
				return fmt.Errorf("cudasim: %w", err)
			}
			return nil
		})
	}
	var runtimeInputs []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".h") {
			n = "inc/" + n
		}
		runtimeInputs = append(runtimeInputs, n)
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".cc") {
			add(n, runtimeFlags, append([]string{n}, runtimeInputs...))
		}
	}
	for _, u := range units {
		w := "sim_" + strings.TrimSuffix(u.File, ".cu") + ".cc"
		add(w, kernelFlags, append([]string{w, u.File}, shared...))
	}
	if err := g.Wait(); err != nil {
		return "", nil, err
	}
	args := append(append([]string{"-o", "kernels.so"}, objs...), linkFlags...)
	if err := run(ctx, dir, cxx, args...); err != nil {
		return "", nil, err
	}
	if err := os.Rename(dir, final); err != nil {
		if _, statErr := os.Stat(lib); statErr == nil {
			return lib, units, nil // built meanwhile by another process
		}
		return "", nil, fmt.Errorf("cudasim: %w", err)
	}
	return lib, units, nil
}

func compile(ctx context.Context, dir, cxx string, flags []string, src, obj string) error {
	args := append(append([]string{}, flags...), "-Iinc", "-c", src, "-o", obj)
	return run(ctx, dir, cxx, args...)
}

func run(ctx context.Context, dir, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("cudasim: %s %s: %w\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return nil
}

// objectKey names the object compiled from inputs (the first is the translation unit)
// with flags.
func objectKey(files map[string][]byte, inputs []string, cxx string, version []byte, flags []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%v\x00%s\x00", cxx, version, flags, inputs[0])
	rest := append([]string(nil), inputs[1:]...)
	sort.Strings(rest)
	for _, n := range rest {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	fmt.Fprintf(h, "%d\x00", len(files[inputs[0]]))
	h.Write(files[inputs[0]])
	return hex.EncodeToString(h.Sum(nil))[:24]
}

func buildKey(files map[string][]byte, cxx string, version []byte) string {
	h := sha256.New()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(h, "%s\x00%s\x00%v\x00%v\x00%v\x00", cxx, version, kernelFlags, runtimeFlags, linkFlags)
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", n, len(files[n]))
		h.Write(files[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:24]
}
