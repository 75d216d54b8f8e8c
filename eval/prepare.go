package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
)

// TaskInputs are a sweep's prompts and where they came from.
type TaskInputs struct {
	Task     TaskSpec
	Problems []Problem
	// Files are the dataset and few-shot files read, for the manifest's checksums.
	Files []string
}

// LoadTaskInputs loads the config's dataset (after the limit), builds every prompt
// with the task's shots (rendered with the tokenizer's chat template when the config
// asks for it), and collects the task's stop strings plus the tokenizer's EOS text.
func LoadTaskInputs(cfg Config, tok *tokenizer.Tokenizer) (TaskInputs, error) {
	task, err := datasets.LookupTask(cfg.Task)
	if err != nil {
		return TaskInputs{}, err
	}
	ds, err := datasets.Load(cfg.Dataset)
	if err != nil {
		return TaskInputs{}, err
	}
	docs := ds.Problems
	if cfg.Limit > 0 && cfg.Limit < len(docs) {
		docs = docs[:cfg.Limit]
	}
	shots, err := datasets.LoadTaskFewshot(task, cfg.TrainDataset, cfg.FewShot)
	if err != nil {
		return TaskInputs{}, err
	}
	multiturn := cfg.ChatTemplate && (cfg.FewshotAsMultiturn == nil || *cfg.FewshotAsMultiturn)
	prompter, err := datasets.NewPrompter(task, shots, datasets.PromptOptions{ChatTemplate: cfg.ChatTemplate, FewshotAsMultiturn: multiturn})
	if err != nil {
		return TaskInputs{}, err
	}
	var chat *tokenizer.ChatTemplate
	if cfg.ChatTemplate {
		if chat, err = tok.ChatTemplate(); err != nil {
			return TaskInputs{}, fmt.Errorf("chat_template: %w", err)
		}
	}
	eosText, _, _ := tok.EOS()
	in := TaskInputs{Task: TaskSpec{Name: task.Name, MaxNewTokens: task.MaxNewTokens}}
	for i, doc := range docs {
		p, err := prompter.Build(doc)
		if err != nil {
			return TaskInputs{}, fmt.Errorf("problem %s: %w", doc.ID, err)
		}
		text := p.Text
		if chat != nil {
			if text, err = chat.Render(chatMessages(p.Messages), true); err != nil {
				return TaskInputs{}, fmt.Errorf("problem %s: chat template: %w", doc.ID, err)
			}
		}
		if i == 0 {
			in.Task.Stops = p.StopStrings(eosText)
			if p.MaxNewTokens > 0 {
				in.Task.MaxNewTokens = p.MaxNewTokens
			}
		}
		in.Problems = append(in.Problems, Problem{ID: doc.ID, Question: doc.Question, Answer: doc.Answer, Prompt: text, Target: doc.Target})
	}
	for _, f := range ds.Files {
		in.Files = append(in.Files, f.Path)
	}
	if task.FewshotFile != "" && cfg.FewShot != "" {
		in.Files = append(in.Files, filepath.Join(cfg.FewShot, task.FewshotFile))
	} else if cfg.TrainDataset != "" && task.NumFewshot > 0 {
		train, err := filepath.Glob(cfg.TrainDataset)
		if err != nil {
			return TaskInputs{}, fmt.Errorf("train_dataset: %w", err)
		}
		in.Files = append(in.Files, train...)
	}
	return in, nil
}

func chatMessages(ms []datasets.Message) []tokenizer.Message {
	out := make([]tokenizer.Message, len(ms))
	for i, m := range ms {
		out[i] = tokenizer.Message{Role: m.Role, Content: m.Content}
	}
	return out
}

// ModelFiles lists the files of a checkpoint directory that define its outputs,
// for the manifest's checksums.
func ModelFiles(dir string) ([]string, error) {
	var files []string
	for _, pattern := range []string{"config.json", "*.safetensors", "model.safetensors.index.json", "tokenizer.json", "tokenizer_config.json", "*.bin"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern))
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		files = append(files, dir)
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}
