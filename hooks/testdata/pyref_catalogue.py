# Runs hook functions of an lm-eval task tree (ENTROPIX_LMEVAL_TASKS, e.g.
# lm_eval/tasks at the pinned commit) that ../shared has no copy of, on the
# cases the Go test sends (JSON lines in, JSON lines out).
import importlib.util, json, sys, types

tasks = sys.argv[1]
for n in ["lm_eval", "lm_eval.tasks", "lm_eval.tasks.mmlu_prox"]:
    sys.modules[n] = types.ModuleType(n)


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    sys.modules[name] = m
    spec.loader.exec_module(m)
    return m


load("lm_eval.tasks.mmlu_prox.lang_libs", tasks + "/mmlu_prox/lang_libs.py")
mods = {}
L3 = load("llama3_mmlu_pro", tasks + "/llama3/instruct/mmlu_pro/utils.py")
for line in sys.stdin:
    c = json.loads(line)
    try:
        if c["kind"] == "mmlu_prox":
            lang = c["lang"]
            if lang not in mods:
                mods[lang] = load("prox_" + lang, tasks + "/mmlu_prox/" + lang + "/utils.py")
            m = mods[lang]
            out = {"ok": [m.doc_to_text(c["doc"]), m.fewshot_to_text(c["doc"])]}
        elif c["kind"] == "llama3_mmlu_pro":
            out = {"ok": L3.fewshot_to_text(c["doc"])}
        else:
            out = {"err": "unknown kind"}
    except Exception as e:
        out = {"err": type(e).__name__}
    print(json.dumps(out))
