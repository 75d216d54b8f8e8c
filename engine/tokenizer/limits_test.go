package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/entropix-eval/entropix-eval/internal/jinja"
	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileTokenizer copies the GPT-2 tokenizer into a directory, applying edit to
// its tokenizer.json, and writes chatTemplate (if any) into tokenizer_config.json.
func hostileTokenizer(t *testing.T, edit func(map[string]any), chatTemplate string) string {
	t.Helper()
	b, err := os.ReadFile(sharedtest.Path(t, "tokenizers/gpt2/tokenizer.json"))
	require.NoError(t, err)
	var tj map[string]any
	require.NoError(t, json.Unmarshal(b, &tj))
	if edit != nil {
		edit(tj)
	}
	dir := t.TempDir()
	b, err = json.Marshal(tj)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer.json"), b, 0o644))
	if chatTemplate != "" {
		cfg, err := json.Marshal(map[string]any{"chat_template": chatTemplate, "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>"})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), cfg, 0o644))
	}
	return dir
}

// Issue 13: a Split regex (a+)+$ on 40 "a"s ran for 21 minutes. The match now
// times out with an error naming the file.
func TestCatastrophicSplitRegexTimesOut(t *testing.T) {
	dir := hostileTokenizer(t, func(tj map[string]any) {
		tj["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": "(a+)+$"}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false},
		}}
	}, "")
	tok, err := Load(dir)
	require.NoError(t, err)
	start := time.Now()
	_, err = tok.Encode(strings.Repeat("a", 40)+"!", false)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 15*time.Second)
	assert.Contains(t, err.Error(), filepath.Join(dir, "tokenizer.json"))
	assert.Contains(t, err.Error(), "backtracks catastrophically")
	ids, err := tok.Encode("aaa b", false)
	require.NoError(t, err, "benign input still encodes")
	assert.NotEmpty(t, ids)
}

func TestEncodeBoundsOnePiece(t *testing.T) {
	defer func(n int) { MaxScanBytes = n }(MaxScanBytes)
	MaxScanBytes = 1000
	dir := hostileTokenizer(t, nil, "")
	tok, err := Load(dir)
	require.NoError(t, err)
	_, err = tok.Encode(strings.Repeat("word ", 201), false)
	require.ErrorContains(t, err, "a piece of 1005 bytes between special tokens is more than the 1000 bytes")
	assert.ErrorContains(t, err, filepath.Join(dir, "tokenizer.json"))
	// Special tokens split the text, so each piece is scanned on its own.
	_, err = tok.Encode(strings.Repeat("word ", 150)+"<|endoftext|>"+strings.Repeat("word ", 150), false)
	require.NoError(t, err)
}

// Chat templates from the internet: every runaway render stops in seconds with an
// error naming tokenizer_config.json.
func TestChatTemplateLimits(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "What is 2+2?"}}
	for _, tc := range []struct {
		name, template, want string
	}{
		{"huge range", `{% for i in range(100000000) %}x{% endfor %}`, "range of 100000000 elements (at most 100000"},
		{"nested ranges", `{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}`, "ran more than 200000 steps"},
		{"output flood", `{% for i in range(90000) %}` + strings.Repeat("x", 2000) + `{% endfor %}`, "output of more than"},
		{"recursive macro", `{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}`, "recursive macro (f → f)"},
		{"mutual recursion", `{% macro a(n) %}{{ b(n) }}{% endmacro %}{% macro b(n) %}{{ a(n) }}{% endmacro %}{{ a(1) }}`, "a → b → a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := hostileTokenizer(t, nil, tc.template)
			tok, err := Load(dir)
			require.NoError(t, err)
			start := time.Now()
			c, err := tok.ChatTemplate()
			if err == nil {
				_, err = c.Render(msgs, true)
			}
			require.Error(t, err)
			assert.Less(t, time.Since(start), 10*time.Second)
			if !strings.Contains(err.Error(), "rendering took more than") {
				assert.Contains(t, err.Error(), tc.want)
			} // a loaded machine may reach the time limit first on the loops
			assert.Contains(t, err.Error(), filepath.Join(dir, "tokenizer_config.json"))
		})
	}
}

func TestChatTemplateTimeLimit(t *testing.T) {
	defer func(d time.Duration) { jinja.RenderTimeout = d }(jinja.RenderTimeout)
	jinja.RenderTimeout = time.Millisecond
	c, err := NewChatTemplate(`{% for i in range(100000) %}{% for j in range(9) %}{% set x = i * j %}{% endfor %}{% endfor %}`, "", "")
	require.NoError(t, err)
	_, err = c.Render(nil, true)
	require.ErrorContains(t, err, "rendering took more than 1ms")
}

// The limits leave real templates alone: a bounded range and a non-recursive
// macro render as Jinja would.
func TestChatTemplateWithinLimits(t *testing.T) {
	c, err := NewChatTemplate(`{% macro say(m) %}[{{ m.role }}]{% endmacro %}{% for m in messages %}{{ say(m) }}{% endfor %}{% for i in range(3) %}{{ i }}{% endfor %}{% for i in range(5, 0, -2) %}{{ i }}{% endfor %}`, "", "")
	require.NoError(t, err)
	out, err := c.Render([]Message{{Role: "user"}, {Role: "assistant"}}, true)
	require.NoError(t, err)
	assert.Equal(t, "[user][assistant]012531", out)
}
