# Runs lm-eval's own hook functions (read from ../shared/tasks at the pinned
# commit) on the cases the Go differential test sends, one JSON object per
# line on stdin, and answers one JSON object per line on stdout. Modules the
# hooks import only for typing or registration are stubbed; the functions
# under test are lm-eval's code, unchanged.
import abc, importlib.util, json, random, sys, types

shared = sys.argv[1]
tasks = shared + "/tasks/lm-eval/"
core = shared + "/tasks/lm-eval-core/"

ds = types.ModuleType("datasets")
ds.Dataset = object
sys.modules["datasets"] = ds


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    sys.modules[name] = m
    spec.loader.exec_module(m)
    return m


# lm_eval.filters.extraction needs lm_eval.api.filter.Filter and
# lm_eval.api.registry.register_filter only as a base class and a decorator.
for n in ["lm_eval", "lm_eval.api", "lm_eval.filters"]:
    sys.modules[n] = types.ModuleType(n)
f = types.ModuleType("lm_eval.api.filter")


class Filter(abc.ABC):
    def __init__(self, **kwargs):
        pass


f.Filter = Filter
sys.modules["lm_eval.api.filter"] = f
r = types.ModuleType("lm_eval.api.registry")
r.register_filter = lambda name: (lambda cls: cls)
sys.modules["lm_eval.api.registry"] = r
load("lm_eval.filters.extraction", core + "filters/extraction.py")

# minerva's utils.py imports sympy, math_verify and antlr4 and checks
# antlr4's version at import time; the functions compared here use none of
# them, so stand-ins let the module load.
for n in ["antlr4", "sympy", "sympy.parsing", "sympy.parsing.latex", "math_verify"]:
    sys.modules[n] = types.ModuleType(n)
sys.modules["sympy.parsing.latex"].parse_latex = None
sys.modules["math_verify"].parse = sys.modules["math_verify"].verify = None
import importlib.metadata as _md

_version = _md.version
_md.version = lambda n: "4.11.1" if n == "antlr4-python3-runtime" else _version(n)
M = load("minerva", tasks + "minerva_math/utils.py")
H = load("hmath", tasks + "hendrycks_math/utils.py")
A = load("aime", tasks + "aime/utils.py")
B = load("bbh", tasks + "bbh/cot_zeroshot/utils.py")
G = load("gpqa", tasks + "gpqa/generative/utils.py")
P = load("mmlupro", tasks + "mmlu_pro/utils.py")


def catch(fn, *a):
    try:
        return {"ok": fn(*a)}
    except Exception as e:  # the Go port reports the same cases as errors
        return {"err": type(e).__name__}


def filt(cls, kw, resp, doc):
    try:
        return {"ok": cls(**kw).apply([[resp]], [doc])[0][0]}
    except Exception as e:
        return {"err": type(e).__name__}


class Rows:
    """Dataset.map as the datasets library applies it: the row updated with
    what the function returns."""

    def __init__(self, rows):
        self.rows = rows

    def map(self, fn):
        return [{**r, **fn(r)} for r in self.rows]


for line in sys.stdin:
    c = json.loads(line)
    k, s = c["kind"], c["s"]
    if k == "strip_string":
        out = catch(H.strip_string, s)
    elif k == "is_equiv":
        out = catch(H.is_equiv, s, c["t"])
    elif k == "boxed":
        out = catch(lambda x: H.remove_boxed(H.last_boxed_only_string(x)), s)
    elif k == "hendrycks_results":
        out = catch(H.process_results, {"solution": c["t"]}, [s])
    elif k == "aime_results":
        out = catch(A.process_results, {"ID": "x", "Answer": c["t"]}, [s])
    elif k == "gpqa":
        random.seed(c["seed"])
        doc = {"Incorrect Answer 1": s, "Incorrect Answer 2": c["t"], "Incorrect Answer 3": c["u"], "Correct Answer": c["v"]}
        out = catch(lambda d: [{k: v for k, v in r.items() if k in ("choices", "answer")} for r in G.process_docs(Rows([d]))], doc)
    elif k == "mmlu_pro":
        doc = {"question": s, "options": c["opts"], "cot_content": c["t"]}
        out = catch(lambda d: [P.doc_to_text(d), P.fewshot_to_target(d)], doc)
    elif k == "minerva_norm":
        out = catch(M.normalize_final_answer, s)
    elif k == "minerva_unnorm":
        out = catch(M.get_unnormalized_answer, s)
    elif k == "minerva_docs":
        out = catch(lambda d: [r["answer"] for r in M.process_docs(Rows([d]))], {"problem": "p", "solution": s})
    elif k == "minerva_samples":
        out = catch(M.list_fewshot_samples)
    elif k == "bbh_multi":
        out = filt(B.MultiChoiceRegexFilter, c["kw"], s, {"input": c["t"]})
    elif k == "bbh_map":
        out = filt(B.MapRegexFilter, c["kw"], s, {"input": c["t"]})
    elif k == "bbh_sort":
        out = filt(B.WordSortFilter, {}, s, {"input": c["t"]})
    else:
        out = {"err": "unknown kind " + k}
    print(json.dumps(out), flush=False)
sys.stdout.flush()
