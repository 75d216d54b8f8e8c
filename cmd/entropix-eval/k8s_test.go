package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// k8sJob is the part of a batch/v1 Job manifest the test reads.
type k8sJob struct {
	Kind string `yaml:"kind"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Template       struct {
			Spec struct {
				SecurityContext struct {
					RunAsUser  int `yaml:"runAsUser"`
					RunAsGroup int `yaml:"runAsGroup"`
				} `yaml:"securityContext"`
				Containers []struct {
					Image        string   `yaml:"image"`
					Command      []string `yaml:"command"`
					Args         []string `yaml:"args"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name      string `yaml:"name"`
					ConfigMap *struct {
						Name string `yaml:"name"`
					} `yaml:"configMap"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

func readJob(t *testing.T, name string) k8sJob {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "configs", name))
	require.NoError(t, err)
	var j k8sJob
	require.NoError(t, yaml.Unmarshal(b, &j), name)
	require.Equal(t, "Job", j.Kind, name)
	require.Len(t, j.Spec.Template.Spec.Containers, 1, name)
	return j
}

// TestKubernetesJobs checks configs/k8s-indexed-job.yaml and k8s-merge-job.yaml against
// the image `make image` builds and against the CLI: every pod's args, with its index
// substituted as the kubelet does, parse into shard i/n of configs/nightly.yaml whose
// files lie on mounted volumes, and the merge Job names exactly the shard directories.
func TestKubernetesJobs(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	require.NoError(t, err)
	image := regexp.MustCompile(`(?m)^IMAGE\s*\?=\s*(\S+)`).FindSubmatch(mk)
	require.NotNil(t, image, "Makefile sets no IMAGE")
	cf, err := os.ReadFile(filepath.Join("..", "..", "Containerfile"))
	require.NoError(t, err)
	user := regexp.MustCompile(`(?m)^USER (\d+):(\d+)$`).FindSubmatch(cf)
	require.NotNil(t, user, "Containerfile sets no numeric USER")

	run, merge := readJob(t, "k8s-indexed-job.yaml"), readJob(t, "k8s-merge-job.yaml")
	for _, j := range []k8sJob{run, merge} {
		c := j.Spec.Template.Spec.Containers[0]
		assert.Equal(t, string(image[1])+":latest", c.Image)
		assert.Empty(t, c.Command, "the image's entrypoint is the binary; it has no shell")
		sc := j.Spec.Template.Spec.SecurityContext
		assert.Equal(t, string(user[1])+":"+string(user[2]), fmt.Sprint(sc.RunAsUser, ":", sc.RunAsGroup))
	}

	require.Equal(t, "Indexed", run.Spec.CompletionMode)
	n := run.Spec.Completions
	require.Positive(t, n)
	pod := run.Spec.Template.Spec
	mounts := map[string]string{} // mount path -> volume name
	for _, m := range pod.Containers[0].VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	mounted := func(p string) bool {
		for dir := range mounts {
			if strings.HasPrefix(p, dir+"/") {
				return true
			}
		}
		return false
	}
	// The config volume is the ConfigMap made from configs/nightly.yaml.
	var configDir string
	for _, v := range pod.Volumes {
		if v.ConfigMap != nil {
			for dir, name := range mounts {
				if name == v.Name {
					configDir = dir
				}
			}
		}
	}
	require.NotEmpty(t, configDir, "no ConfigMap volume mounted")

	args := pod.Containers[0].Args
	require.NotEmpty(t, args)
	require.Equal(t, "run", args[0])
	var outs []string
	for i := 0; i < n; i++ {
		podArgs := make([]string, len(args)-1)
		for k, a := range args[1:] {
			a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(i))
			if rest, ok := strings.CutPrefix(a, configDir+"/"); ok {
				a = filepath.Join("..", "..", "configs", rest)
			}
			podArgs[k] = a
		}
		cfg, _, err := parseRunArgs(podArgs, io.Discard)
		require.NoError(t, err, "pod %d args %q", i, podArgs)
		assert.Equal(t, fmt.Sprintf("%d/%d", i, n), cfg.Shard)
		for _, p := range []string{cfg.Model, cfg.Dataset, cfg.Out} {
			assert.True(t, mounted(p), "pod %d: %s is on no mounted volume", i, p)
		}
		outs = append(outs, cfg.Out)
	}
	assert.Len(t, uniq(outs), n, "every pod writes its own shard directory")

	margs := merge.Spec.Template.Spec.Containers[0].Args
	require.GreaterOrEqual(t, len(margs), 2)
	assert.Equal(t, "merge", margs[0])
	out, ok := strings.CutPrefix(margs[1], "--out=")
	require.True(t, ok, "merge's first flag is --out=DIR")
	assert.Equal(t, outs, margs[2:], "the merge Job names every shard directory, in order")
	assert.Equal(t, filepath.Dir(outs[0]), filepath.Dir(out), "merged beside the shards")
}

func uniq(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}
