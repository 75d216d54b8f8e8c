package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/entropix-eval/entropix-eval/internal/sharedtest"
)

type tokenizeGolden struct {
	Text       string  `json:"text"`
	AddSpecial bool    `json:"add_special_tokens"`
	IDs        []int32 `json:"ids"`
	Decoded    string  `json:"decoded"`
}

func readTokenizeGoldens(t *testing.T, name string) ([]byte, []tokenizeGolden) {
	t.Helper()
	raw, err := os.ReadFile(sharedtest.Path(t, "golden/tokenizers/"+name+".jsonl"))
	require.NoError(t, err)
	var rows []tokenizeGolden
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var g tokenizeGolden
		require.NoError(t, json.Unmarshal(sc.Bytes(), &g))
		rows = append(rows, g)
	}
	return raw, rows
}

func TestTokenizeJSONLMatchesGoldens(t *testing.T) {
	for _, name := range []string{"llama3", "stories260k"} {
		t.Run(name, func(t *testing.T) {
			raw, want := readTokenizeGoldens(t, name)
			var out bytes.Buffer
			err := runTokenize(context.Background(),
				[]string{"--model", sharedtest.Path(t, "tokenizers/"+name), "--jsonl", "-"}, bytes.NewReader(raw), &out)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			require.Len(t, lines, len(want))
			for i, line := range lines {
				var got struct {
					IDs     []int32 `json:"ids"`
					Decoded string  `json:"decoded"`
				}
				require.NoError(t, json.Unmarshal([]byte(line), &got))
				require.Equal(t, want[i].IDs, append([]int32{}, got.IDs...), "line %d %q", i+1, want[i].Text)
				require.Equal(t, want[i].Decoded, got.Decoded, "line %d", i+1)
			}
		})
	}
}

func TestTokenizeTextAndDecode(t *testing.T) {
	_, rows := readTokenizeGoldens(t, "llama2")
	var g tokenizeGolden
	for _, r := range rows {
		if r.Text == "text with <s>inline</s> tags" && r.AddSpecial {
			g = r
		}
	}
	require.NotEmpty(t, g.IDs, `golden row "text with <s>inline</s> tags" with special tokens`)
	model := sharedtest.Path(t, "tokenizers/llama2/tokenizer.json")

	var out bytes.Buffer
	require.NoError(t, runTokenize(context.Background(), []string{"--model", model, g.Text}, nil, &out))
	var ids []int32
	require.NoError(t, json.Unmarshal(out.Bytes(), &ids))
	require.Equal(t, g.IDs, ids)

	out.Reset()
	require.NoError(t, runTokenize(context.Background(), []string{"--model", model, "--no-special", g.Text}, nil, &out))
	require.NoError(t, json.Unmarshal(out.Bytes(), &ids))
	require.Equal(t, g.IDs[1:], ids, "without the BOS")

	idList := make([]string, len(g.IDs))
	for i, id := range g.IDs {
		idList[i] = strings.TrimSpace(string(must(json.Marshal(id))))
	}
	out.Reset()
	require.NoError(t, runTokenize(context.Background(), []string{"--model", model, "--decode", strings.Join(idList, ",")}, nil, &out))
	require.Equal(t, g.Decoded+"\n", out.String())
}

func TestTokenizeUsageErrors(t *testing.T) {
	model := sharedtest.Path(t, "tokenizers/gpt2")
	cases := map[string][]string{
		"no model":   {"hello"},
		"no input":   {"--model", model},
		"two inputs": {"--model", model, "--decode", "1", "hello"},
		"bad id":     {"--model", model, "--decode", "1,x"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			err := runTokenize(context.Background(), args, nil, &bytes.Buffer{})
			require.ErrorIs(t, err, errUsage)
		})
	}
	err := runTokenize(context.Background(), []string{"--model", t.TempDir(), "x"}, nil, &bytes.Buffer{})
	require.ErrorContains(t, err, "tokenizer.json")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
