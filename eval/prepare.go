package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/entropix-eval/entropix-eval/datasets"
	"github.com/entropix-eval/entropix-eval/engine/tokenizer"
	"github.com/entropix-eval/entropix-eval/hooks"
)

// TaskInputs are a sweep's prompts and where they came from.
type TaskInputs struct {
	Task     TaskSpec
	Problems []Problem
	// Files are the dataset files read, for the manifest's checksums.
	Files []string
	// Repeats is the task's repeats (lm-eval's, > 1 for self-consistency).
	Repeats int
}

// ResolveTask finds the config's task: a name among the built-in tasks and
// the include paths, or a task YAML file (a path ending in .yaml or .yml).
func ResolveTask(cfg Config) (*datasets.Task, error) {
	ix, err := datasets.NewIndex(cfg.IncludePaths...)
	if err != nil {
		return nil, err
	}
	ix.PythonHooks, ix.Python = cfg.PythonHooks, cfg.PythonRunner
	name := cfg.Task
	if IsTaskFile(name) {
		names, err := ix.AddFile(name)
		if err != nil {
			return nil, fmt.Errorf("task: %w", err)
		}
		name = names[0]
	}
	if e, ok := ix.Lookup(name); ok && e.Kind != datasets.KindTask {
		members, err := ix.Expand(name)
		if err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("task: %s is a %s of %d tasks (%s); a run directory holds one task", name, e.Kind, len(members), strings.Join(members, ", "))
	}
	return ix.Task(name)
}

// ExpandTask lists the tasks the config's task names: itself for a task or a
// task file, a group's or tag's members otherwise (every member must be
// indexed, or the error names the missing ones).
func ExpandTask(cfg Config) ([]string, error) {
	if IsTaskFile(cfg.Task) {
		return []string{cfg.Task}, nil
	}
	ix, err := datasets.NewIndex(cfg.IncludePaths...)
	if err != nil {
		return nil, err
	}
	return ix.Expand(cfg.Task)
}

// IsTaskFile says whether a --task value names a YAML file rather than a task.
func IsTaskFile(s string) bool {
	ext := strings.ToLower(filepath.Ext(s))
	return ext == ".yaml" || ext == ".yml"
}

// DataSourceOf is where the config's task reads its splits from: --dataset
// and --train-dataset for the evaluated and few-shot splits, --data-dir
// mirrors, then the Hugging Face caches (hubCaches, and the datasets cache).
func DataSourceOf(cfg Config, task *datasets.Task, hubCaches []string) datasets.DataSource {
	files := map[string]string{}
	if cfg.Dataset != "" {
		files[task.EvalSplit()] = cfg.Dataset
	}
	if cfg.TrainDataset != "" {
		if s := task.ShotSplit(); s != "" && s != task.EvalSplit() {
			files[s] = cfg.TrainDataset
		}
	}
	return datasets.DataSource{Files: files, DataDirs: cfg.DataDirs, HubCaches: hubCaches, DatasetsCaches: datasets.DatasetsCacheDirs()}
}

// LoadTaskInputs loads the task's evaluated split (after the limit), builds
// every prompt with the task's shots (rendered with the tokenizer's chat
// template when the config asks for it), and collects the task's stop
// strings plus the tokenizer's EOS text.
func LoadTaskInputs(cfg Config, task *datasets.Task, src datasets.DataSource, tok *tokenizer.Tokenizer) (TaskInputs, error) {
	if len(task.PythonHooks) > 0 && !task.PythonBound() {
		return TaskInputs{}, fmt.Errorf("task %s: its Python hooks have no interpreter to run in (--python-hooks)", task.Name)
	}
	opts := datasets.PromptOptions{ChatTemplate: cfg.ChatTemplate, NumFewshot: cfg.NumFewshot, SystemInstruction: cfg.SystemInstruction}
	shots := task.NumFewshot
	if cfg.NumFewshot != nil {
		shots = *cfg.NumFewshot
	}
	data, err := datasets.LoadTaskData(task, src, shots)
	if err != nil {
		return TaskInputs{}, err
	}
	opts.FewshotFromTestSplit = data.ShotsFromEvalSplit
	docs := data.Docs.Problems
	if cfg.Limit > 0 && cfg.Limit < len(docs) {
		docs = docs[:cfg.Limit]
	}
	opts.FewshotAsMultiturn = cfg.ChatTemplate && (cfg.FewshotAsMultiturn == nil || *cfg.FewshotAsMultiturn)
	prompter, err := datasets.NewPrompter(task, data.Shots, opts)
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
	desc := task.Describe()
	desc["num_fewshot"] = prompter.NumFewshot()
	in := TaskInputs{
		Task: TaskSpec{Name: task.Name, MaxNewTokens: task.MaxNewTokens, Stops: datasets.Prompt{Until: task.Until}.StopStrings(eosText),
			Filters: task.Filters, Metrics: task.Metrics, Repeats: task.Repeats, Config: desc, OutputType: scoredType(task),
			SplitSize: len(data.Docs.Problems), ProcessResults: task.ProcessResults, PythonResults: task.PythonResults()},
		Files: data.Files, Repeats: task.Repeats,
	}
	// A scored task's targets come with its requests (scoredDoc).
	var refs []Reference
	if !datasets.IsScoredOutput(task.OutputType) {
		if refs, err = References(task, docs); err != nil {
			return TaskInputs{}, err
		}
	}
	for i, doc := range docs {
		p, err := prompter.Build(doc)
		if err != nil {
			return TaskInputs{}, fmt.Errorf("problem %s: %w", doc.ID, err)
		}
		text := p.Text
		if chat != nil {
			if text, err = renderChat(chat, p); err != nil {
				return TaskInputs{}, fmt.Errorf("problem %s: chat template: %w", doc.ID, err)
			}
		}
		q, _ := doc.Doc["question"].(string)
		a, _ := doc.Doc["answer"].(string)
		p2 := Problem{ID: doc.ID, Question: q, Answer: a, Prompt: text, Doc: doc.Doc, DocColumns: doc.Columns}
		if datasets.IsScoredOutput(task.OutputType) {
			if p2.Scoring, p2.Target, err = scoredDoc(task, doc, text, chat != nil); err != nil {
				return TaskInputs{}, fmt.Errorf("task %s: problem %s: %w", task.Name, doc.ID, err)
			}
		} else {
			p2.Target, p2.Targets = refs[i].Target, refs[i].Targets
		}
		in.Problems = append(in.Problems, p2)
	}
	return in, nil
}

// References are the docs' targets as lm-eval scores them. Whether the task
// has multiple targets is decided on the first doc, as lm-eval does: then
// every doc gets a list (a single target becomes a list of one); otherwise a
// doc whose target is a list is compared with the list's str().
func References(task *datasets.Task, docs []datasets.Problem) ([]Reference, error) {
	out := make([]Reference, len(docs))
	multi := false
	for i, doc := range docs {
		list, isList, err := task.TargetList(doc.Doc)
		if err != nil {
			return nil, fmt.Errorf("task %s: problem %s: %w", task.Name, doc.ID, err)
		}
		if i == 0 {
			multi = isList
		}
		ref := Reference{Doc: doc.Doc, Columns: doc.Columns.Names()}
		switch {
		case isList:
			ref.Target = hooks.PyStr(toAny(list))
			if multi {
				ref.Targets = list
			}
		default:
			if ref.Target, err = task.Target(doc.Doc); err != nil {
				return nil, fmt.Errorf("task %s: problem %s: %w", task.Name, doc.ID, err)
			}
			if multi {
				ref.Targets = []string{ref.Target}
			}
		}
		out[i] = ref
	}
	return out, nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// renderChat renders a prompt's messages with the chat template: with the
// generation prompt, or, when the last message is the start of the
// assistant's reply (gen_prefix), without it and cut right after that
// message's text, as transformers' continue_final_message does (the text as
// given, else stripped, for templates that trim contents).
func renderChat(chat *tokenizer.ChatTemplate, p datasets.Prompt) (string, error) {
	if !p.ContinueFinal {
		return chat.Render(chatMessages(p.Messages), true)
	}
	text, err := chat.Render(chatMessages(p.Messages), false)
	if err != nil {
		return "", err
	}
	final := p.Messages[len(p.Messages)-1].Content
	for _, f := range []string{final, strings.TrimSpace(final)} {
		if i := strings.LastIndex(text, f); i >= 0 && f != "" {
			return text[:i+len(f)], nil
		}
	}
	return "", fmt.Errorf("the rendered chat does not contain the final message %q to continue (gen_prefix)", final)
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

// scoredType is TaskSpec.OutputType: the task's output_type when it is scored.
func scoredType(t *datasets.Task) string {
	if datasets.IsScoredOutput(t.OutputType) {
		return t.OutputType
	}
	return ""
}
