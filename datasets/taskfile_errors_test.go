package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Task-file errors name the file by its whole path (the root's "/" was
// dropped: "tmp/x/task.yaml"), an absolute include is read as lm-eval reads
// it (it was "stat /x: invalid argument"), and a key set twice is refused
// naming both lines (PyYAML keeps the last one silently).
func TestTaskFileErrorsAndIncludes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	base := write("base.yaml", "dataset_path: json\ntest_split: test\ndoc_to_text: \"{{q}}\"\ndoc_to_target: \"{{a}}\"\n")
	notYAML := write("passwd", "root:x:0:0:root:/root:/bin/bash\n")

	ix, err := NewIndex()
	require.NoError(t, err)
	names, err := ix.AddFile(write("abs.yaml", fmt.Sprintf("include: %s\ntask: abs_include\n", base)))
	require.NoError(t, err, "an absolute include")
	task, err := ix.Task(names[0])
	require.NoError(t, err)
	assert.Equal(t, "test", task.TestSplit)

	bad := write("bad.yaml", fmt.Sprintf("include: %s\ntask: bad_include\n", notYAML))
	_, err = ix.AddFile(bad)
	require.Error(t, err)
	assert.Regexp(t, "^"+bad+": include "+notYAML+": "+notYAML+": ", err.Error())

	dup := write("dup.yaml", "task: dup\ndataset_path: json\ntask: dup2\n")
	_, err = ix.AddFile(dup)
	require.ErrorContains(t, err, dup+`: line 3: key "task" is set again (first on line 1)`)
}
