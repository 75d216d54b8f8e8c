package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lmevalTasks is an lm-eval lm_eval/tasks tree at the pinned commit, for the
// ports whose Python ../shared has no copy of (mmlu_prox, llama3). It is not
// in CI; these tests skip without it.
func lmevalTasks(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("ENTROPIX_LMEVAL_TASKS")
	if dir == "" {
		t.Skip("ENTROPIX_LMEVAL_TASKS is not set (an lm-eval lm_eval/tasks tree at " + PinnedCommit + ")")
	}
	return dir
}

// The pinned files the catalogue ports were read from still hash as the
// ports say, and the llama3 files define exactly the 57 subjects.
func TestCatalogueSourcesArePinned(t *testing.T) {
	dir := lmevalTasks(t)
	for _, p := range ports {
		for _, s := range p.Sources {
			if !strings.HasPrefix(s.Folder, "mmlu_prox") && !strings.HasPrefix(s.Folder, "llama3") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, s.Folder, "utils.py"))
			require.NoError(t, err)
			assert.Equal(t, s.SHA256, sha256Hex(b), s.Folder)
		}
	}
	subject := regexp.MustCompile(`(process_docs_\w+) = partial\(\s*process_docs, subtask="(\w+)"`)
	for lang := range llama3MMLUSources {
		b, err := os.ReadFile(filepath.Join(dir, "llama3/instruct/mmlu_"+lang, "utils.py"))
		require.NoError(t, err)
		var got []string
		for _, m := range subject.FindAllStringSubmatch(string(b), -1) {
			require.Equal(t, "process_docs_"+m[2], m[1])
			got = append(got, m[2])
		}
		slices.Sort(got)
		assert.Equal(t, mmluSubjects, got, lang)
	}
}

// mmlu_prox's prompts in every language and llama3's mmlu_pro shot text,
// against the Python of the task tree on generated docs.
func TestCataloguePortsMatchPython(t *testing.T) {
	dir := lmevalTasks(t)
	py := pythonOrSkip(t)
	langs := mmluProxSources
	r := rand.New(rand.NewPCG(24, 1))
	pieces := []string{"x", " ", "\n", "Q?", "A: Let's think step by step.", "The answer is (B).", "é", "質問", "(C)", "1.5"}
	type tc struct {
		Kind string         `json:"kind"`
		Lang string         `json:"lang,omitempty"`
		Doc  map[string]any `json:"doc"`
	}
	var cases []tc
	var want []func() (any, error)
	for i := range 3000 {
		src := langs[i%len(langs)]
		lang := filepath.Base(src.Folder)
		b, err := os.ReadFile(filepath.Join(dir, "mmlu_prox", "lang_libs.py"))
		require.NoError(t, err)
		libs, err := pyDictOfStringLists(string(b), "LANG_LIBS")
		require.NoError(t, err)
		doc := map[string]any{"question": genFrom(r, pieces, 5), "cot_content": libs[lang][4] + genFrom(r, pieces, 5)}
		for k := range 10 {
			if r.IntN(4) == 0 {
				doc["option_"+string(rune('0'+k))] = nil
			} else {
				doc["option_"+string(rune('0'+k))] = genFrom(r, pieces, 3)
			}
		}
		cases = append(cases, tc{Kind: "mmlu_prox", Lang: lang, Doc: doc})
		want = append(want, func() (any, error) {
			a, err := mmluProxExample(doc, libs[lang], false)
			if err != nil {
				return nil, err
			}
			b, err := mmluProxExample(doc, libs[lang], true)
			return []string{a, b}, err
		})
		shot := map[string]any{"cot_content": genFrom(r, pieces, 6)}
		cases = append(cases, tc{Kind: "llama3_mmlu_pro", Doc: shot})
		want = append(want, func() (any, error) { return llama3MMLUProShot(shot) })
	}
	var in strings.Builder
	for _, c := range cases {
		b, _ := json.Marshal(c)
		in.Write(append(b, '\n'))
	}
	cmd := exec.Command(py, filepath.Join("testdata", "pyref_catalogue.py"), dir)
	cmd.Stdin = strings.NewReader(in.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(cases))
	for i, l := range lines {
		var a pyAnswer
		require.NoError(t, json.Unmarshal([]byte(l), &a))
		got, err := want[i]()
		if a.Err != "" {
			assert.Error(t, err, "case %d: Python raised %s", i, a.Err)
			continue
		}
		require.NoError(t, err, "case %d", i)
		b, _ := json.Marshal(got)
		assert.JSONEq(t, string(a.OK), string(b), "case %d (%s)", i, cases[i].Kind)
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
