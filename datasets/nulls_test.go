package datasets

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A NULL column a template names is refused, whichever file format it came
// from; a NULL column no template names is fine. (Jinja prints None as
// "None", gonja as "": a NULL answer became the target "" and scored 0.)
func TestTemplatesRefuseTheNullsTheyRead(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.jsonl": "{\"question\": \"q0\", \"answer\": \"x1\", \"note\": null}\n{\"question\": \"q1\", \"answer\": null, \"note\": null}\n",
		"a.csv":   "question,answer,note\nq0,x1,\nq1,,\n",
	}
	for name, body := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
			ds, err := LoadDocs(path)
			require.NoError(t, err, "loading keeps NULLs as they are")
			require.Len(t, ds.Problems, 2)
			for _, src := range []string{"{{answer}}", "answer", "{{ answer | trim }}", "{{ question ~ answer }}", "{% if answer is none %}x{% else %}y{% endif %}"} {
				tpl := NewTemplate("doc_to_target", src)
				got, err := tpl.RenderString(ds.Problems[0].Doc)
				require.NoError(t, err, "%s: a NULL note is never read", src)
				assert.NotEmpty(t, got)
				_, err = tpl.RenderString(ds.Problems[1].Doc)
				require.ErrorIs(t, err, ErrNull, src)
				assert.ErrorContains(t, err, `doc_to_target reads column "answer", which is NULL`)
			}
			got, err := NewTemplate("doc_to_text", "Q: {{question}} ({{ answers }})").RenderString(Doc{"question": "q", "answers": "a", "answer": nil})
			require.NoError(t, err, "answers is not answer")
			assert.Equal(t, "Q: q (a)", got)
		})
	}
}
