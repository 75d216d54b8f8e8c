package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/buildinfo"
	"debug/elf"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// imageBinary is where the Containerfile puts the CLI; it is the entrypoint.
const imageBinary = "usr/local/bin/entropix-eval"

// TestContainerImage checks the OCI archive `make image` writes
// (bin/entropix-eval-image.tar; ENTROPIX_IMAGE names it, and CI sets it, so the test
// is required there and skips elsewhere): the image's files are the static binary and
// /tmp and nothing else, its entrypoint is the binary, it runs as a non-root user and
// carries its version. Containers cannot be run on these machines, so the binary is
// run from the image's extracted root filesystem under chroot (no container runtime,
// no namespaces) when the test runs as root: the embedded demo must work there, with
// no libc, /etc or shell around it.
func TestContainerImage(t *testing.T) {
	archive := os.Getenv("ENTROPIX_IMAGE")
	if archive == "" {
		t.Skip("no image: run `make image` and set ENTROPIX_IMAGE=$PWD/bin/entropix-eval-image.tar")
	}
	img := readOCIArchive(t, archive)

	cfg := img.config.Config
	assert.Equal(t, []string{"/" + imageBinary}, cfg.Entrypoint)
	assert.Equal(t, "65532:65532", cfg.User)
	assert.Contains(t, cfg.Env, "HOME=/tmp")
	version := cfg.Labels["org.opencontainers.image.version"]
	assert.NotEmpty(t, version)
	assert.Equal(t, img.refName, version, "the version label is the tag make image gave")
	assert.Equal(t, "linux", img.config.OS)

	assert.Equal(t, map[string]os.FileMode{
		"tmp":           os.ModeDir | os.ModeSticky | 0o777,
		"usr":           os.ModeDir | 0o755,
		"usr/local":     os.ModeDir | 0o755,
		"usr/local/bin": os.ModeDir | 0o755,
		imageBinary:     0o755,
	}, img.files, "the image holds the binary and /tmp, nothing else")

	bin := filepath.Join(t.TempDir(), "rootfs")
	extractRootfs(t, img, bin)
	exe := filepath.Join(bin, imageBinary)
	f, err := elf.Open(exe)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		assert.NotEqual(t, elf.PT_INTERP, p.Type, "a static binary has no program interpreter")
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	assert.Empty(t, libs, "a static binary links no shared library")
	info, err := buildinfo.ReadFile(exe)
	require.NoError(t, err)
	assert.Equal(t, "github.com/entropix-eval/entropix-eval/cmd/entropix-eval", info.Path)
	assert.Contains(t, info.Settings, debug.BuildSetting{Key: "CGO_ENABLED", Value: "0"})

	if os.Geteuid() != 0 {
		t.Log("not root: skipping the run of the binary under chroot")
		return
	}
	chroot, err := exec.LookPath("chroot")
	require.NoError(t, err)
	cmd := exec.Command(chroot, "--userspec="+cfg.User, bin, cfg.Entrypoint[0], "demo", "--random", "--limit", "2", "--out", "/tmp/demo")
	cmd.Env = cfg.Env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "report:")
	assert.FileExists(t, filepath.Join(bin, "tmp", "demo", "report.html"))
}

// ociImage is the part of an OCI image layout the test reads.
type ociImage struct {
	refName string
	config  struct {
		OS     string `json:"os"`
		Config struct {
			User       string            `json:"User"`
			Env        []string          `json:"Env"`
			Entrypoint []string          `json:"Entrypoint"`
			Labels     map[string]string `json:"Labels"`
		} `json:"config"`
	}
	files  map[string]os.FileMode // path in the image -> mode
	layers [][]byte               // uncompressed layer tars, in order
}

type ociDescriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Annotations map[string]string `json:"annotations"`
}

// readOCIArchive reads an oci-archive (a tar of an OCI image layout) holding one image.
func readOCIArchive(t *testing.T, archive string) *ociImage {
	t.Helper()
	f, err := os.Open(archive)
	require.NoError(t, err)
	defer f.Close()
	entries := map[string][]byte{}
	eachTarEntry(t, f, func(h *tar.Header, body io.Reader) {
		if h.Typeflag == tar.TypeReg {
			b, err := io.ReadAll(body)
			require.NoError(t, err)
			entries[path.Clean(h.Name)] = b
		}
	})
	blob := func(d ociDescriptor) []byte {
		b, ok := entries["blobs/"+strings.Replace(d.Digest, ":", "/", 1)]
		require.True(t, ok, "blob %s missing from %s", d.Digest, archive)
		return b
	}
	var index struct {
		Manifests []ociDescriptor `json:"manifests"`
	}
	require.NoError(t, json.Unmarshal(entries["index.json"], &index), "index.json")
	require.Len(t, index.Manifests, 1)
	var manifest struct {
		Config ociDescriptor   `json:"config"`
		Layers []ociDescriptor `json:"layers"`
	}
	require.NoError(t, json.Unmarshal(blob(index.Manifests[0]), &manifest))
	img := &ociImage{refName: index.Manifests[0].Annotations["org.opencontainers.image.ref.name"], files: map[string]os.FileMode{}}
	require.NoError(t, json.Unmarshal(blob(manifest.Config), &img.config))
	for _, l := range manifest.Layers {
		var r io.Reader = bytes.NewReader(blob(l))
		if strings.HasSuffix(l.MediaType, "+gzip") {
			zr, err := gzip.NewReader(r)
			require.NoError(t, err)
			r = zr
		}
		layer, err := io.ReadAll(r)
		require.NoError(t, err, "layer %s", l.Digest)
		img.layers = append(img.layers, layer)
		eachTarEntry(t, bytes.NewReader(layer), func(h *tar.Header, _ io.Reader) {
			img.files[path.Clean(h.Name)] = h.FileInfo().Mode()
		})
	}
	return img
}

// extractRootfs writes the image's directories and regular files under dir.
func extractRootfs(t *testing.T, img *ociImage, dir string) {
	t.Helper()
	for _, layer := range img.layers {
		eachTarEntry(t, bytes.NewReader(layer), func(h *tar.Header, body io.Reader) {
			dst := filepath.Join(dir, filepath.FromSlash(path.Clean(h.Name)))
			mode := h.FileInfo().Mode()
			switch h.Typeflag {
			case tar.TypeDir:
				require.NoError(t, os.MkdirAll(dst, 0o755))
				require.NoError(t, os.Chmod(dst, mode))
			case tar.TypeReg:
				require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
				b, err := io.ReadAll(body)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(dst, b, mode.Perm()))
			default:
				t.Fatalf("unexpected entry %s (type %c) in the image", h.Name, h.Typeflag)
			}
		})
	}
}

// eachTarEntry calls fn with every entry of the tar stream r and its contents.
func eachTarEntry(t *testing.T, r io.Reader, fn func(h *tar.Header, body io.Reader)) {
	t.Helper()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		require.NoError(t, err)
		fn(h, tr)
	}
}
