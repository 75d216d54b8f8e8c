// Command gpuprep finishes `make gpu-prep`: it copies exactly the ../shared files the
// GPU tests read (cuda/internal/testmodels) into PREP/shared beside the binaries the
// Makefile built there, writes PREP/MANIFEST.sha256 over all of it (window.sh checks
// it on the GPU machine), and prints the device tool's carry list and commands,
// ending with one line `carry: PREP (N MiB)`.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/entropix-eval/entropix-eval/cuda/internal/testmodels"
)

// travelLimit is what the device tool sends: the working tree and the carried paths.
const travelLimit = 64 << 20

// binaries are what the Makefile builds into PREP before this runs.
var binaries = []string{"cuda.test", "mkmodel"}

func main() {
	shared := flag.String("shared", "../shared", "the shared test data folder")
	prep := flag.String("prep", ".gpuprep", "the folder to carry (git-ignored, inside the checkout)")
	flag.Parse()
	if err := run(*shared, *prep, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gpuprep:", err)
		os.Exit(1)
	}
}

func run(shared, prep string, w io.Writer) error {
	for _, b := range binaries {
		if _, err := os.Stat(filepath.Join(prep, b)); err != nil {
			return fmt.Errorf("%w (the Makefile's gpu-prep target builds it)", err)
		}
	}
	// Only the copy this command made before goes; what else PREP holds stays.
	if err := os.RemoveAll(filepath.Join(prep, "shared")); err != nil {
		return err
	}
	copied, err := testmodels.Copy(shared, filepath.Join(prep, "shared"))
	if err != nil {
		return fmt.Errorf("-shared %s: %w", shared, err)
	}
	files, total, err := manifest(prep)
	if err != nil {
		return err
	}
	carry := prep
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, prep); err == nil && !strings.HasPrefix(rel, "..") {
			carry = rel
		}
	}
	fmt.Fprintf(w, "gpu-prep: %s holds %s, %s and %d shared files (%s); %s lists all %d\n", carry,
		sizeOf(prep, "cuda.test"), sizeOf(prep, "mkmodel"), len(testmodels.Files()), mib(copied), manifestName, files)
	tree, err := workingTree()
	if err != nil {
		fmt.Fprintf(w, "working tree: unknown (%v)\n", err)
	} else {
		fmt.Fprintf(w, "working tree that travels: %s; with the carry %s of the device tool's %s\n",
			mib(tree), mib(tree+total), mib(travelLimit))
		if tree+total > travelLimit {
			return fmt.Errorf("the working tree (%s) and %s (%s) exceed the device tool's %s", mib(tree), carry, mib(total), mib(travelLimit))
		}
	}
	fmt.Fprintf(w, "device run: carry [%q], timeout_s 420, command \"bash cuda/bench/window.sh\"\n", carry)
	fmt.Fprintf(w, "then, if 4+ minutes are left: carry [%q], timeout_s 240, command \"bash cuda/bench/window.sh sanitize\"\n", carry)
	fmt.Fprintf(w, "carry: %s (%s)\n", carry, mib(total))
	return nil
}

const manifestName = "MANIFEST.sha256"

// manifest writes the sha256sum-format checksum of every file under prep and returns
// how many there are and their total size (the manifest included).
func manifest(prep string) (int, int64, error) {
	var rels []string
	var total int64
	err := filepath.WalkDir(prep, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(prep, p)
		if err != nil || rel == manifestName {
			return err
		}
		rels = append(rels, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	sort.Strings(rels)
	var buf bytes.Buffer
	for _, rel := range rels {
		sum, n, err := hashFile(filepath.Join(prep, rel))
		if err != nil {
			return 0, 0, err
		}
		total += n
		fmt.Fprintf(&buf, "%s  %s\n", sum, rel)
	}
	total += int64(buf.Len())
	return len(rels), total, os.WriteFile(filepath.Join(prep, manifestName), buf.Bytes(), 0o644)
}

func hashFile(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// workingTree is the size of what the device tool sends besides the carry: tracked
// files and untracked ones git does not ignore.
func workingTree() (int64, error) {
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return 0, fmt.Errorf("git ls-files: %w", err)
	}
	var total int64
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted but still tracked
		}
		if err != nil {
			return 0, err
		}
		total += st.Size()
	}
	return total, nil
}

func sizeOf(dir, name string) string {
	st, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		return name + " (?)"
	}
	return fmt.Sprintf("%s (%s)", name, mib(st.Size()))
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
