package hooks

// mmlu_prox and mmlu_prox_lite (29 languages × 14 subjects, each language
// folder with the same utils.py): the chain-of-thought prompt in the folder's
// language, whose phrases utils.py takes from LANG_LIBS in
// lm_eval/tasks/mmlu_prox/lang_libs.py, and the category filters. The port
// reads that table from the task tree at load time, after checking its hash,
// rather than carrying a copy.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
)

var mmluProxSources = func() []Source {
	var out []Source
	for _, lang := range strings.Fields("af ar bn cs de en es fr hi hu id it ja ko mr ne pt ru sr sw te th uk ur vi wo yo zh zu") {
		out = append(out, Source{"mmlu_prox/" + lang, "cfb27b5b32d75fccf7745e19b4b96668856b5a7c44e7e7a4533854e19e6ac5e1"})
	}
	return out
}()

// mmluProxLangLibs is the SHA-256 of the lang_libs.py the port reads.
const mmluProxLangLibs = "582a892b4e8419c16384552b369d7ba828418c57768ccdd82d61172116b3da55"

func init() {
	for _, fn := range []string{"doc_to_text", "fewshot_to_text"} {
		withAnswer := fn == "fewshot_to_text"
		registerPort(Port{Function: fn, Sources: mmluProxSources, Bind: func(ctx PortContext) (*Port, error) {
			lib, err := mmluProxLang(ctx)
			if err != nil {
				return nil, err
			}
			return &Port{Function: fn, Text: func(doc map[string]any) (string, error) { return mmluProxExample(doc, lib, withAnswer) }}, nil
		}})
	}
	for fn, category := range mmluProSubjects {
		registerPort(Port{Function: "process_" + fn, Sources: mmluProxSources, Docs: filterColumn("category", category)})
	}
}

// mmluProxLang is LANG_LIBS[<the folder's name>] from ../lang_libs.py.
func mmluProxLang(ctx PortContext) ([]string, error) {
	b, err := ctx.ReadFile("../lang_libs.py")
	if err != nil {
		return nil, fmt.Errorf("mmlu_prox: %w", err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != mmluProxLangLibs {
		return nil, fmt.Errorf("mmlu_prox: lang_libs.py has sha256 %s, the port was read from %s: %w", hex.EncodeToString(sum[:]), mmluProxLangLibs, ErrNoPort)
	}
	libs, err := pyDictOfStringLists(string(b), "LANG_LIBS")
	if err != nil {
		return nil, fmt.Errorf("mmlu_prox: lang_libs.py: %w", err)
	}
	lang := path.Base(ctx.Folder)
	lib, ok := libs[lang]
	if !ok || len(lib) < 5 {
		return nil, fmt.Errorf("mmlu_prox: lang_libs.py has no language %q (Python: KeyError)", lang)
	}
	return lib, nil
}

// mmluProxExample is format_cot_example: question, the non-null option_0..9
// lettered, then the language's answer opening, or (with the answer) the
// shot's cot_content with its opening translated and a blank line.
func mmluProxExample(doc map[string]any, lib []string, withAnswer bool) (string, error) {
	q, err := strColumn(doc, "question", "mmlu_prox format_cot_example")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(lib[0] + "\n" + q + "\n" + lib[1] + "\n")
	for i := 0; i < 10; i++ {
		opt, ok := doc[fmt.Sprintf("option_%d", i)]
		if !ok {
			return "", fmt.Errorf("mmlu_prox format_cot_example: no column option_%d (Python: KeyError)", i)
		}
		if opt != nil {
			b.WriteString(string(rune('A'+i)) + ". " + PyStr(opt) + "\n")
		}
	}
	if !withAnswer {
		b.WriteString(lib[2])
		return b.String(), nil
	}
	cot, err := strColumn(doc, "cot_content", "mmlu_prox format_cot_example")
	if err != nil {
		return "", err
	}
	b.WriteString(strings.ReplaceAll(cot, lib[4], lib[2]) + "\n\n")
	return b.String(), nil
}
